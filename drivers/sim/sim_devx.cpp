/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DEVX general objects. Two layers are modelled, as on a real system:
 * the "kernel" checks the command shape, the context and the handle
 * (failing with a plain errno), then the "firmware" runs the command and
 * reports a PRM status and syndrome in the output (errno EREMOTEIO).
 */
#include <algorithm>
#include <cstring>
#include <memory>

#include <unistd.h>

#include "dvs_prm.h"
#include "sim_context.h"
#include "sim_export.h"

namespace dvs::sim {

namespace {

/* Create opcodes the kernel's DEVX lets through to firmware. Only general
 * objects are implemented; the others fail in "firmware" with BAD_OP. */
bool kernel_knows_create(uint16_t op)
{
	static constexpr uint16_t known[] = {
		0x0200 /* CREATE_MKEY */, 0x0301 /* CREATE_EQ */, 0x0400 /* CREATE_CQ */,
		0x0500 /* CREATE_QP */, 0x0800 /* ALLOC_PD */, 0x0816 /* ALLOC_TD */,
		0x0900 /* CREATE_TIR */, 0x0904 /* CREATE_SQ */, 0x0908 /* CREATE_RQ */,
		0x0912 /* CREATE_TIS */, 0x0916 /* CREATE_RQT */, 0x0930 /* CREATE_FLOW_TABLE */,
		DVS_PRM_CMD_CREATE_GENERAL_OBJECT,
	};
	return std::find(std::begin(known), std::end(known), op) != std::end(known);
}

size_t ctx_size(uint16_t obj_type)
{
	switch (obj_type) {
	case DVS_PRM_OBJ_VIRTQ: return DVS_PRM_VIRTQ_CTX_SIZE;
	case DVS_PRM_OBJ_GENERIC: return DVS_PRM_GENERIC_CTX_SIZE;
	default: return 0;
	}
}

/* Report a firmware failure: status and syndrome in @out, errno EREMOTEIO. */
int fw_fail(void *out, size_t outlen, uint8_t status, uint32_t syndrome)
{
	if (out != nullptr && outlen >= DVS_PRM_HDR_SIZE) {
		memset(out, 0, DVS_PRM_HDR_SIZE);
		dvs_prm_put8(out, 0, status);
		dvs_prm_put32(out, 4, syndrome);
	}
	return fail(EREMOTEIO);
}

void fw_ok(void *out, uint32_t obj_id)
{
	memset(out, 0, DVS_PRM_HDR_SIZE);
	dvs_prm_put32(out, 8, obj_id);
}

bool virtq_transition_ok(uint8_t from, uint8_t to)
{
	if (to == DVS_PRM_VIRTQ_ERR || from == to)
		return true;
	return (from == DVS_PRM_VIRTQ_INIT && to == DVS_PRM_VIRTQ_RDY) ||
	       (from == DVS_PRM_VIRTQ_RDY && to == DVS_PRM_VIRTQ_SUSPEND) ||
	       (from == DVS_PRM_VIRTQ_SUSPEND && to == DVS_PRM_VIRTQ_RDY);
}

/* Firmware checks of a virtio-queue create; 0 or a syndrome. */
uint32_t virtq_check_create(const HandleTable &t, const uint8_t *ctx)
{
	uint16_t qsize = dvs_prm_get16(ctx, DVS_PRM_VIRTQ_QUEUE_SIZE);
	uint32_t umem_id = dvs_prm_get32(ctx, DVS_PRM_VIRTQ_UMEM_ID);

	if (qsize == 0 || qsize > 32768 || (qsize & (qsize - 1)) != 0)
		return DVS_SIM_SYND_BAD_QUEUE_SIZE;
	if (dvs_prm_get8(ctx, DVS_PRM_VIRTQ_STATE) != DVS_PRM_VIRTQ_INIT)
		return DVS_SIM_SYND_BAD_STATE;
	if (umem_id != 0 && find_umem(t, umem_id) == nullptr)
		return DVS_SIM_SYND_BAD_UMEM;
	return 0;
}

/* Apply a virtio-queue modify to @k; returns a PRM status (syndrome out). */
uint8_t virtq_modify(Kobj &k, const uint8_t *ctx, uint32_t *synd)
{
	uint64_t sel = dvs_prm_get64(ctx, DVS_PRM_VIRTQ_MODIFY_SELECT);
	uint8_t cur = dvs_prm_get8(k.ctx, DVS_PRM_VIRTQ_STATE);

	if (sel == 0 || (sel & ~(DVS_PRM_VIRTQ_MODIFY_STATE | DVS_PRM_VIRTQ_MODIFY_ADDRS)) != 0) {
		*synd = DVS_SIM_SYND_BAD_SELECT;
		return DVS_PRM_STATUS_BAD_PARAM;
	}
	if ((sel & DVS_PRM_VIRTQ_MODIFY_ADDRS) && cur == DVS_PRM_VIRTQ_RDY) {
		*synd = DVS_SIM_SYND_BAD_RES_STATE;
		return DVS_PRM_STATUS_BAD_RES_STATE;
	}
	uint8_t to = dvs_prm_get8(ctx, DVS_PRM_VIRTQ_STATE);
	if ((sel & DVS_PRM_VIRTQ_MODIFY_STATE) && !virtq_transition_ok(cur, to)) {
		*synd = DVS_SIM_SYND_BAD_STATE;
		return DVS_PRM_STATUS_BAD_PARAM;
	}
	if (sel & DVS_PRM_VIRTQ_MODIFY_ADDRS)
		memcpy(k.ctx + DVS_PRM_VIRTQ_DESC_ADDR, ctx + DVS_PRM_VIRTQ_DESC_ADDR, 24);
	if (sel & DVS_PRM_VIRTQ_MODIFY_STATE)
		dvs_prm_put8(k.ctx, DVS_PRM_VIRTQ_STATE, to);
	return DVS_PRM_STATUS_OK;
}

uint8_t generic_modify(Kobj &k, const uint8_t *ctx, uint32_t *synd)
{
	uint64_t sel = dvs_prm_get64(ctx, 0);

	if (sel != DVS_PRM_GENERIC_MODIFY_DATA) {
		*synd = DVS_SIM_SYND_BAD_SELECT;
		return DVS_PRM_STATUS_BAD_PARAM;
	}
	memcpy(k.ctx + DVS_PRM_GENERIC_DATA_OFF, ctx + DVS_PRM_GENERIC_DATA_OFF,
	       DVS_PRM_GENERIC_DATA_SIZE);
	return DVS_PRM_STATUS_OK;
}

SimDevxObj *to_obj(struct mlx5dv_devx_obj *obj)
{
	return reinterpret_cast<SimDevxObj *>(obj);
}

struct mlx5dv_devx_obj *make_obj(SimContext *sc, uint32_t handle, const Kobj &k)
{
	auto o = std::make_unique<SimDevxObj>();

	o->ctx = sc;
	o->handle = handle;
	o->obj_id = k.id;
	o->obj_type = k.obj_type;
	o->log_obj_range = k.log_obj_range;
	return reinterpret_cast<struct mlx5dv_devx_obj *>(o.release());
}

/* Kernel checks shared by query and modify: a live object, the expected
 * opcode, and a header naming this very object. 0 or an errno. */
int kernel_check_cmd(SimDevxObj *o, Kobj **k, uint16_t opcode, const void *in,
		     size_t inlen, const void *out, size_t outlen)
{
	if (in == nullptr || out == nullptr || inlen < DVS_PRM_HDR_SIZE ||
	    outlen < DVS_PRM_HDR_SIZE)
		return EINVAL;
	*k = o->ctx->ufile.table().lookup(o->handle, KobjType::DevxObj);
	if (*k == nullptr)
		return EINVAL;
	struct dvs_prm_hdr h = dvs_prm_hdr_decode(in);
	if (h.opcode != opcode || h.obj_type != o->obj_type || h.obj_id != o->obj_id)
		return EINVAL;
	return 0;
}

/* Query and modify: kernel checks under the ufile lock, then @fw runs the
 * command on the live object with its context size. */
template <typename Fn>
int run_cmd(struct mlx5dv_devx_obj *obj, uint16_t opcode, const void *in, size_t inlen,
	    void *out, size_t outlen, Fn &&fw)
{
	if (obj == nullptr)
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	UfileLock lock(o->ctx->ufile.hdr());
	Kobj *k = nullptr;
	int err = kernel_check_cmd(o, &k, opcode, in, inlen, out, outlen);
	if (err != 0)
		return fail(err);
	return fw(*k, ctx_size(k->obj_type));
}

} // namespace

struct mlx5dv_devx_obj *devx_obj_create(struct ibv_context *ctx, const void *in,
					size_t inlen, void *out, size_t outlen)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || in == nullptr || out == nullptr ||
	    inlen < DVS_PRM_HDR_SIZE || outlen < DVS_PRM_HDR_SIZE)
		return fail_null<struct mlx5dv_devx_obj>(EINVAL);
	if (!sc->ufile.hdr()->devx)
		return fail_null<struct mlx5dv_devx_obj>(EOPNOTSUPP);
	struct dvs_prm_hdr h = dvs_prm_hdr_decode(in);
	if (!kernel_knows_create(h.opcode))
		return fail_null<struct mlx5dv_devx_obj>(EINVAL);
	if (h.opcode != DVS_PRM_CMD_CREATE_GENERAL_OBJECT) {
		fw_fail(out, outlen, DVS_PRM_STATUS_BAD_OP, DVS_SIM_SYND_BAD_OPCODE);
		return nullptr;
	}
	size_t csize = ctx_size(h.obj_type);
	if (csize == 0) {
		fw_fail(out, outlen, DVS_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_OBJ_TYPE);
		return nullptr;
	}
	if (inlen < DVS_PRM_HDR_SIZE + csize) {
		fw_fail(out, outlen, DVS_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
		return nullptr;
	}
	const auto *cctx = static_cast<const uint8_t *>(in) + DVS_PRM_HDR_SIZE;
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	uint32_t synd = h.obj_type == DVS_PRM_OBJ_VIRTQ ? virtq_check_create(t, cctx) : 0;
	if (synd != 0) {
		fw_fail(out, outlen, DVS_PRM_STATUS_BAD_PARAM, synd);
		return nullptr;
	}
	Kobj k{};
	k.obj_type = h.obj_type;
	k.log_obj_range = h.log_obj_range;
	k.owner_pid = getpid();
	memcpy(k.ctx, cctx, csize);
	memset(k.ctx, 0, 8); /* modify_field_select is not state */
	if (h.obj_type == DVS_PRM_OBJ_VIRTQ)
		k.ref_umem = dvs_prm_get32(cctx, DVS_PRM_VIRTQ_UMEM_ID);
	uint32_t handle = t.insert(k, KobjType::DevxObj);
	if (handle == 0)
		return fail_null<struct mlx5dv_devx_obj>(ENOSPC);
	Kobj *live = t.lookup(handle, KobjType::DevxObj);
	live->id = devx_obj_id_of(handle);
	if (live->ref_umem != 0)
		find_umem(t, live->ref_umem)->users++;
	fw_ok(out, live->id);
	return make_obj(sc, handle, *live);
}

int devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		   void *out, size_t outlen)
{
	return run_cmd(obj, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, in, inlen, out, outlen,
		       [&](Kobj &k, size_t csize) {
		if (outlen < DVS_PRM_HDR_SIZE + csize)
			return fw_fail(out, outlen, DVS_PRM_STATUS_BAD_OUTPUT_LEN,
				       DVS_SIM_SYND_OUTPUT_LEN);
		fw_ok(out, k.id);
		memcpy(static_cast<uint8_t *>(out) + DVS_PRM_HDR_SIZE, k.ctx, csize);
		return 0;
	});
}

int devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	return run_cmd(obj, DVS_PRM_CMD_MODIFY_GENERAL_OBJECT, in, inlen, out, outlen,
		       [&](Kobj &k, size_t csize) {
		if (inlen < DVS_PRM_HDR_SIZE + csize)
			return fw_fail(out, outlen, DVS_PRM_STATUS_BAD_INPUT_LEN,
				       DVS_SIM_SYND_INPUT_LEN);
		const auto *mctx = static_cast<const uint8_t *>(in) + DVS_PRM_HDR_SIZE;
		uint32_t synd = 0;
		uint8_t status = k.obj_type == DVS_PRM_OBJ_VIRTQ ? virtq_modify(k, mctx, &synd)
								 : generic_modify(k, mctx, &synd);
		if (status != DVS_PRM_STATUS_OK)
			return fw_fail(out, outlen, status, synd);
		fw_ok(out, k.id);
		return 0;
	});
}

int devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	if (obj == nullptr)
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	{
		UfileLock lock(o->ctx->ufile.hdr());
		HandleTable t = o->ctx->ufile.table();
		Kobj *k = t.lookup(o->handle, KobjType::DevxObj);
		/* A stale handle fails and the local struct stays the
		 * caller's (to unimport), as a failed ioctl leaves it. */
		if (k == nullptr)
			return fail(EINVAL);
		if (k->ref_umem != 0) {
			Kobj *u = find_umem(t, k->ref_umem);
			if (u != nullptr && u->users > 0)
				u->users--;
		}
		t.remove(o->handle, KobjType::DevxObj);
	}
	std::unique_ptr<SimDevxObj> owned(o);
	return 0;
}

int devx_obj_export(struct mlx5dv_devx_obj *obj, void *data)
{
	if (obj == nullptr)
		return fail(EINVAL);
	SimDevxObj *o = to_obj(obj);
	return export_blob<ObjBlob>(o->ctx, o->handle, KobjType::DevxObj, data, [&](ObjBlob &b) {
		b.type = o->obj_type;
		b.object_id = o->obj_id;
		b.log_obj_range = o->log_obj_range;
	});
}

struct mlx5dv_devx_obj *devx_obj_import(struct ibv_context *ctx, void *data)
{
	return import_blob<ObjBlob, struct mlx5dv_devx_obj>(
		ctx, data, KobjType::DevxObj,
		[](const Kobj &k, const ObjBlob &b) {
			return k.id == b.object_id && k.obj_type == b.type;
		},
		[](SimContext *sc, const ObjBlob &b, const Kobj &k) {
			return make_obj(sc, b.handle, k);
		});
}

void devx_obj_unimport(struct mlx5dv_devx_obj *obj)
{
	std::unique_ptr<SimDevxObj> owned(to_obj(obj));
}

} // namespace dvs::sim
