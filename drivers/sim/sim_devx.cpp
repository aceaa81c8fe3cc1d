/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DEVX objects and device commands: the kernel layer (mlx5_ib devx.c) and
 * libmlx5's user-space halves. The kernel checks the context, the handle
 * and the command, failing with a plain errno; it stamps the context's uid
 * into the command and hands it to the firmware (sim_firmware.cpp), whose
 * failures come back as EREMOTEIO with the output copied to the caller.
 * The destroy command is the kernel's own, built from the create command
 * (devx_obj_build_destroy_cmd).
 */
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include <unistd.h>

#include "sim_context.h"
#include "sim_export.h"
#include "sim_firmware.h"
#include "sim_var_pages.h"

namespace dvs::sim {

namespace {

/* devx_is_obj_create_cmd (SET_FLOW_TABLE_ENTRY with op_mod 0 and
 * CREATE_PSV with one PSV are checked apart). */
constexpr uint16_t kCreateOps[] = {
	0xa00, 0x200, 0x400, 0x800, 0x816, 0x90c, 0x904, 0x908, 0x916, 0x900, 0x912, 0x771,
	0x930, 0x933, 0x939, 0x93d, 0x940, 0x782, 0x827, 0x829, 0x500, 0x700, 0x705, 0x710,
	0x717, 0x806, 0x80e,
};
/* devx_is_obj_modify_cmd (SET_FLOW_TABLE_ENTRY with op_mod 1 apart). */
constexpr uint16_t kModifyOps[] = {
	0xa01, 0x403, 0x90d, 0x905, 0x909, 0x917, 0x901, 0x913, 0x93c, 0x785, 0x827, 0x829,
	0x502, 0x503, 0x50e, 0x504, 0x505, 0x506, 0x507, 0x50a, 0x708, 0x703, 0x714, 0x71a,
	0x726, 0x729, 0x72a,
};
/* devx_is_obj_query_cmd. */
constexpr uint16_t kQueryOps[] = {
	0xa02, 0x201, 0x402, 0x90f, 0x907, 0x90b, 0x919, 0x903, 0x915, 0x773, 0x932, 0x935,
	0x937, 0x93b, 0x942, 0x784, 0x82a, 0x50b, 0x702, 0x707, 0x713, 0x719, 0x725, 0x727,
	0x93f,
};
/* devx_is_general_cmd, besides the 0xb00..0xcff range. */
constexpr uint16_t kGeneralOps[] = {
	0x100, 0x762, 0x752, 0x750, 0x101, 0x10a, 0x754, 0x760, 0x76f, 0x770, 0x80a, 0x80d,
	0x822, 0x824, 0x826, 0x842, 0x740,
};

template <size_t N> bool listed(const uint16_t (&ops)[N], uint16_t op)
{
	return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}

bool is_create(const uint8_t *in)
{
	uint16_t op = dvshare_prm_opcode(in);

	if (op == 0x936) /* SET_FLOW_TABLE_ENTRY */
		return dvshare_prm_get16(in, 6) == 0;
	if (op == 0x600) /* CREATE_PSV: num_psv, bits 31:28 of dword 2 */
		return (dvshare_prm_get8(in, 8) >> 4) == 1;
	return listed(kCreateOps, op);
}

bool is_modify(const uint8_t *in)
{
	uint16_t op = dvshare_prm_opcode(in);

	return op == 0x936 ? dvshare_prm_get16(in, 6) == 1 : listed(kModifyOps, op);
}

bool is_general(const uint8_t *in)
{
	uint16_t op = dvshare_prm_opcode(in);

	return (op >= 0xb00 && op < 0xd00) || listed(kGeneralOps, op);
}

/* devx_get_uid: the context's DEVX uid (every sim context has DEVX, so
 * the kernel's whitelist uid for contexts without is never used). */
int get_uid(const SimContext *sc, const uint8_t *, uint16_t *uid)
{
	*uid = static_cast<uint16_t>(sc->ufile.hdr()->devx_uid);
	return 0;
}

/* The kernel's encoded object id (get_enc_obj_id): the create opcode
 * (with obj_type for general objects) and the id. */
uint64_t enc_id(uint16_t create_op, uint16_t obj_type, uint32_t id)
{
	uint32_t op = create_op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT
			      ? create_op | static_cast<uint32_t>(obj_type) << 16
			      : create_op;
	return static_cast<uint64_t>(op) << 32 | id;
}

/* devx_get_obj_id for the query/modify commands of objects the sim has;
 * any other command names no object of the sim. */
uint64_t cmd_enc_id(const uint8_t *in)
{
	switch (dvshare_prm_opcode(in)) {
	case DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT:
	case DVSHARE_PRM_CMD_MODIFY_GENERAL_OBJECT:
		return enc_id(DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT, dvshare_prm_get16(in, 6),
			      dvshare_prm_get32(in, 8));
	case DVSHARE_PRM_CMD_QUERY_FLOW_COUNTER:
		return enc_id(DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, 0, dvshare_prm_get32(in, 28));
	case DVSHARE_PRM_CMD_QUERY_MKEY: /* query_mkey_in.mkey_index */
		return enc_id(DVSHARE_PRM_CMD_CREATE_MKEY, 0, dvshare_prm_get24(in, 9));
	case DVSHARE_PRM_CMD_QUERY_TIS:
	case 0x0913: /* MODIFY_TIS */
		return enc_id(DVSHARE_PRM_CMD_CREATE_TIS, 0, dvshare_prm_get24(in, 9));
	default:
		return UINT64_MAX;
	}
}

/* Firmware status of a command the kernel issued itself, as
 * mlx5_cmd_exec reports it (cmd_status_to_err). */
int status_errno(uint8_t status)
{
	return dvs_sim_cmd_status_errno(status);
}

SimDevxObj *to_obj(struct mlx5dv_devx_obj *obj)
{
	return reinterpret_cast<SimDevxObj *>(obj);
}

/* libmlx5's set_devx_obj_info: what the local struct records. */
struct mlx5dv_devx_obj *make_obj(SimContext *sc, uint32_t handle, const Kobj &k)
{
	auto o = std::make_unique<SimDevxObj>();

	o->ctx = sc;
	o->handle = handle;
	if (k.create_op == DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER) {
		o->type = kLibFlowCounter;
		o->object_id = k.id;
	} else if (k.create_op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT) {
		o->object_id = k.id;
		o->log_obj_range = k.log_obj_range;
	}
	return reinterpret_cast<struct mlx5dv_devx_obj *>(o.release());
}

/* The command as the firmware sees it: a copy with the uid stamped, and
 * an output zeroed over its whole length (uverbs_zalloc). */
struct Stamped {
	std::vector<uint8_t> in;
	FwCmd cmd;
};

Stamped stamp(const void *in, size_t inlen, void *out, size_t outlen, uint16_t uid)
{
	Stamped s;

	s.in.assign(static_cast<const uint8_t *>(in), static_cast<const uint8_t *>(in) + inlen);
	dvshare_prm_put16(s.in.data(), 2, uid);
	memset(out, 0, outlen);
	s.cmd = { s.in.data(), inlen, static_cast<uint8_t *>(out), outlen };
	return s;
}

/* devx_handle_mkey_create: a CREATE_MKEY shorter than its mkc is EINVAL
 * (bad_mkey_create); every mode but the indirect ones (KLM, KSM) gets
 * mkey_umem_valid, so the firmware takes a direct key's translations
 * from the UMEM (set_umem_valid). */
bool bad_mkey_create(const uint8_t *in, size_t inlen)
{
	return dvshare_prm_opcode(in) == DVSHARE_PRM_CMD_CREATE_MKEY &&
	       inlen < DVSHARE_PRM_MKEY_MKC + 64;
}

void set_umem_valid(std::vector<uint8_t> &in)
{
	if (dvshare_prm_opcode(in.data()) != DVSHARE_PRM_CMD_CREATE_MKEY)
		return;
	uint8_t mode = static_cast<uint8_t>((in[DVSHARE_PRM_MKEY_MODE_4_2] >> 2 & 0x7) << 2 |
					    (in[DVSHARE_PRM_MKEY_ACCESS] & 0x3));
	if (mode != DVSHARE_PRM_MKEY_MODE_KLM && mode != DVSHARE_PRM_MKEY_MODE_KSM)
		in[DVSHARE_PRM_MKEY_UMEM_VALID] |= 0x40;
}

/* The reply of a firmware command to the caller: 0 or EREMOTEIO. */
int finish(const FwCmd &c, FwStatus st)
{
	fw_reply(c, st);
	return st.ok() ? 0 : fail(EREMOTEIO);
}

bool bad_buffers(const void *in, size_t inlen, const void *out, size_t outlen)
{
	/* UVERBS_ATTR_MIN_SIZE of the in and out headers; libmlx5 refuses
	 * lengths above 65535. */
	return in == nullptr || out == nullptr || inlen < DVSHARE_PRM_HDR_SIZE ||
	       outlen < DVSHARE_PRM_HDR_SIZE || inlen > 0xffff || outlen > 0xffff;
}

/* Query and modify: MLX5_IB_METHOD_DEVX_OBJ_QUERY / _MODIFY. */
template <typename Fw>
int obj_cmd(struct mlx5dv_devx_obj *obj, bool (*is_kind)(const uint8_t *), const void *in,
	    size_t inlen, void *out, size_t outlen, Fw &&fw)
{
	if (obj == nullptr || bad_buffers(in, inlen, out, outlen))
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	const auto *cmd = static_cast<const uint8_t *>(in);
	uint16_t uid;
	UfileLock lock(o->ctx->ufile.hdr());
	Kobj *k = o->ctx->ufile.table().at(o->handle);
	if (k == nullptr)
		return fail(ENOENT);
	/* The kernel's query and modify handlers, as its create: no command
	 * for another vhca (vhca_tunnel_id). */
	if (dvshare_prm_get16(cmd, 4) != 0 || !is_kind(cmd))
		return fail(EINVAL);
	int rc = get_uid(o->ctx, cmd, &uid);
	if (rc != 0)
		return fail(-rc);
	/* devx_is_valid_obj_id: the command must name the handle's object. */
	if (k->type != static_cast<uint32_t>(KobjType::DevxObj) ||
	    cmd_enc_id(cmd) != enc_id(k->create_op, k->obj_type, k->id))
		return fail(EINVAL);
	Stamped s = stamp(in, inlen, out, outlen, uid);
	return finish(s.cmd, fw(o->ctx->ufile, *k, s.cmd));
}

bool query_kind(const uint8_t *in)
{
	return listed(kQueryOps, dvshare_prm_opcode(in));
}

} // namespace

struct mlx5dv_devx_obj *devx_obj_create(struct ibv_context *ctx, const void *in,
					size_t inlen, void *out, size_t outlen)
{
	SimContext *sc = to_sim(ctx);
	const auto *cmd = static_cast<const uint8_t *>(in);
	uint16_t uid;

	if (sc == nullptr)
		return fail_null<struct mlx5dv_devx_obj>(EOPNOTSUPP);
	if (bad_buffers(in, inlen, out, outlen) || dvshare_prm_get16(cmd, 4) != 0 /* vhca_tunnel_id */)
		return fail_null<struct mlx5dv_devx_obj>(EINVAL);
	int rc = get_uid(sc, cmd, &uid);
	if (rc != 0)
		return fail_null<struct mlx5dv_devx_obj>(-rc);
	if (!is_create(cmd) || bad_mkey_create(cmd, inlen))
		return fail_null<struct mlx5dv_devx_obj>(EINVAL);
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	Kobj init{};
	init.uid = uid;
	init.owner_pid = self_pid();
	uint32_t handle = t.insert(init, KobjType::DevxObj);
	if (handle == HandleTable::kNone)
		return fail_null<struct mlx5dv_devx_obj>(ENOMEM);
	Kobj *k = t.at(handle);
	Stamped s = stamp(in, inlen, out, outlen, uid);
	set_umem_valid(s.in);
	if (finish(s.cmd, fw_create(sc->ufile, handle, *k, s.cmd)) != 0) {
		t.remove(handle);
		return fail_null<struct mlx5dv_devx_obj>(EREMOTEIO);
	}
	return make_obj(sc, handle, *k);
}

int devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
		   size_t outlen)
{
	return obj_cmd(obj, query_kind, in, inlen, out, outlen, fw_query);
}

int devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen, void *out,
		    size_t outlen)
{
	return obj_cmd(obj, is_modify, in, inlen, out, outlen, fw_modify);
}

/* MLX5_IB_METHOD_DEVX_OBJ_DESTROY: whatever DEVX object the handle names
 * now is destroyed; when the firmware refuses, the object and the local
 * struct stay (libmlx5 frees it only on success). */
int devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	if (obj == nullptr)
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	{
		UfileLock lock(o->ctx->ufile.hdr());
		HandleTable t = o->ctx->ufile.table();
		Kobj *k = nullptr;
		int rc = t.lookup(o->handle, KobjType::DevxObj, &k);
		if (rc != 0)
			return fail(-rc);
		if ((rc = take_destroy_failure()) != 0)
			return fail(rc);
		FwStatus st = fw_destroy(o->ctx->ufile, *k);
		if (!st.ok())
			return fail(status_errno(st.status));
		t.remove(o->handle);
	}
	std::unique_ptr<SimDevxObj> owned(o);
	return 0;
}

int devx_obj_export(struct mlx5dv_devx_obj *obj, void *data)
{
	if (obj == nullptr)
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	return export_blob<ObjBlob>(data, [&](ObjBlob &b) {
		b.handle = o->handle;
		b.type = o->type;
		b.object_id = o->object_id;
		b.rx_icm_addr = o->rx_icm_addr;
		b.log_obj_range = o->log_obj_range;
	});
}

struct mlx5dv_devx_obj *devx_obj_import(struct ibv_context *ctx, void *data)
{
	return import_blob<ObjBlob, struct mlx5dv_devx_obj>(ctx, data, [](SimContext *sc,
									  const ObjBlob &b) {
		auto o = std::make_unique<SimDevxObj>();
		o->ctx = sc;
		o->handle = b.handle;
		o->type = b.type;
		o->object_id = b.object_id;
		o->rx_icm_addr = b.rx_icm_addr;
		o->log_obj_range = b.log_obj_range;
		return reinterpret_cast<struct mlx5dv_devx_obj *>(o.release());
	});
}

void devx_obj_unimport(struct mlx5dv_devx_obj *obj)
{
	std::unique_ptr<SimDevxObj> owned(to_obj(obj));
}

/* mlx5dv_devx_general_cmd / MLX5_IB_METHOD_DEVX_OTHER. */
int devx_general_cmd(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
		     size_t outlen)
{
	SimContext *sc = to_sim(ctx);
	const auto *cmd = static_cast<const uint8_t *>(in);
	uint16_t uid;

	if (sc == nullptr)
		return fail(EOPNOTSUPP);
	if (bad_buffers(in, inlen, out, outlen))
		return fail(EINVAL);
	int rc = get_uid(sc, cmd, &uid);
	if (rc != 0)
		return fail(-rc);
	if (!is_general(cmd))
		return fail(EINVAL);
	UfileLock lock(sc->ufile.hdr());
	Stamped s = stamp(in, inlen, out, outlen, uid);
	return finish(s.cmd, fw_general(sc->ufile, s.cmd));
}

} // namespace dvs::sim

int dvs_sim_cmd_status_errno(uint8_t status)
{
	switch (status) {
	case DVSHARE_PRM_STATUS_OK: return 0;
	case DVSHARE_PRM_STATUS_BAD_OP:
	case DVSHARE_PRM_STATUS_BAD_PARAM:
	case DVSHARE_PRM_STATUS_BAD_RESOURCE:
	case DVSHARE_PRM_STATUS_BAD_RES_STATE:
	case DVSHARE_PRM_STATUS_BAD_INDEX:
		return EINVAL;
	case DVSHARE_PRM_STATUS_RESOURCE_BUSY: return EBUSY;
	case DVSHARE_PRM_STATUS_EXCEED_LIM: return ENOMEM;
	case DVSHARE_PRM_STATUS_NO_RESOURCES: return EAGAIN;
	default: return EIO; /* INTERNAL_ERR, BAD_SYS_STATE, the lengths, unknown */
	}
}
