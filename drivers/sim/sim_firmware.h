/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sim's "firmware": the PRM commands it executes once the kernel
 * layer (sim_devx.cpp) has let them through. Each answers with a PRM
 * status and syndrome in the command output, as a ConnectX does; the
 * kernel layer turns a status other than OK into errno EREMOTEIO (or,
 * for the destroy commands the kernel issues itself, into the errno
 * mlx5_cmd_exec would give). Objects modelled: PD, flow counter,
 * memory key, transport domain, TIS, VIRTIO_NET_Q and VIRTIO_Q_COUNTERS;
 * device command: QUERY_HCA_CAP. Callers hold the ufile lock.
 */
#ifndef DVS_SIM_FIRMWARE_H
#define DVS_SIM_FIRMWARE_H

#include <cstddef>
#include <cstdint>

#include "dvshare_prm.h"
#include "sim_ufile.h"

namespace dvs::sim {

/* A command as the kernel passes it: input (uid stamped) and output. */
struct FwCmd {
	const uint8_t *in;
	size_t inlen;
	uint8_t *out;
	size_t outlen;
};

struct FwStatus {
	uint8_t status = DVSHARE_PRM_STATUS_OK;
	uint32_t syndrome = 0;

	bool ok() const { return status == DVSHARE_PRM_STATUS_OK; }
};

inline FwStatus fw_error(uint8_t status, uint32_t syndrome)
{
	return { status, syndrome };
}

/* The status of most refusals: a field the device does not take. */
inline FwStatus bad_param(uint32_t syndrome)
{
	return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, syndrome);
}

/* Create the object @c asks for in slot @handle (@k, already reserved by
 * the kernel: type DevxObj). Fills @k and the output. */
FwStatus fw_create(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c);
/* A query or modify command on object @k (the kernel checked the ids). */
FwStatus fw_query(const Ufile &u, Kobj &k, const FwCmd &c);
FwStatus fw_modify(const Ufile &u, Kobj &k, const FwCmd &c);
/* The destroy command the kernel built for @k at create time. */
FwStatus fw_destroy(const Ufile &u, Kobj &k);
/* A device command (QUERY_HCA_CAP). */
FwStatus fw_general(const Ufile &u, const FwCmd &c);

/* Write the status and syndrome into the output header. */
void fw_reply(const FwCmd &c, FwStatus s);

/* VIRTIO_NET_Q, in sim_fw_virtq.cpp. */
FwStatus virtq_create(const Ufile &u, Kobj &k, const FwCmd &c);
FwStatus virtq_query(Kobj &k, const FwCmd &c);
FwStatus virtq_modify(const Ufile &u, Kobj &k, const FwCmd &c);
/* Drop the references of a queue being destroyed (UMEMs, PD, TIS, counters). */
void virtq_release(const Ufile &u, Kobj &k);

/* Memory keys, in sim_fw_mkey.cpp. An mkey object's context (Kobj::ctx). */
constexpr uint32_t kMaxKlm = 1u << DVS_SIM_LOG_MAX_KLM; /* KLM entries of an indirect key */
struct MkeyCtx {
	uint8_t mode;           /* DVSHARE_PRM_MKEY_MODE_MTT or _KLM */
	uint8_t lr, lw, rr, rw;
	uint8_t key;            /* mkey_7_0 */
	uint8_t log_page_size;
	uint8_t nklm;           /* KLM: entries kept (the empty ones dropped) */
	uint32_t pd;
	uint32_t qpn;
	uint32_t umem_id;       /* MTT: the UMEM */
	uint32_t translations;  /* translations_octword_size, as given */
	uint64_t start, len;
	uint64_t umem_off;      /* MTT: UMEM byte of @start */
	struct {
		uint32_t byte_count;
		uint32_t mkey;      /* a direct key */
		uint64_t address;   /* in that key's range */
	} klm[kMaxKlm];
};
MkeyCtx &mkey_ctx(Kobj &k);
const MkeyCtx &mkey_ctx(const Kobj &k);
/* The live key whose value (mkey_index << 8 | mkey_7_0) is @mkey, or nullptr. */
Kobj *find_mkey(const Ufile &u, uint32_t mkey);
FwStatus mkey_create(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c);
FwStatus mkey_query(Kobj &k, const FwCmd &c);
/* Drop what a key being destroyed holds (PD, UMEM, the keys it names). */
void mkey_release(const Ufile &u, Kobj &k);

/* A piece of a key's range and the UMEM bytes behind it. */
struct MemPiece {
	uint64_t lo, hi;        /* [lo, hi) of the key's addresses */
	const Kobj *umem;       /* the UMEM */
	uint64_t umem_off;      /* its byte at @lo */
	bool read, write;       /* what the device may do there (lr, lw) */
};
/* The pieces of key @k, in address order: 0 when a UMEM or key it names
 * is gone (never, while it holds them). At most kMaxKlm. */
int mkey_pieces(const Ufile &u, const Kobj &k, MemPiece *out);
/* Does key @k map [@addr, @addr + @len) in one piece, readable (and
 * writable when @write)? */
bool mkey_holds(const Ufile &u, const Kobj &k, uint64_t addr, uint64_t len, bool write);

/* A live PD with id @pd, or nullptr. */
Kobj *find_pd(const Ufile &u, uint32_t pd);
/* A live DEVX object with firmware id @id made by @create_op (and, for a
 * general object, of @obj_type), or nullptr. */
Kobj *find_devx(const Ufile &u, uint32_t id, uint16_t create_op, uint16_t obj_type);
/* Drop one firmware reference to that object (@id 0: none). */
void drop_ref(const Ufile &u, uint32_t id, uint16_t create_op, uint16_t obj_type);

/* Transport domain, TIS and queue counters, in sim_fw_transport.cpp. */
FwStatus alloc_td(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c);
FwStatus create_tis(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c);
FwStatus query_tis(Kobj &k, const FwCmd &c);
FwStatus virtq_counters_create(const FwCmd &c);
FwStatus virtq_counters_query(const Kobj &k, const FwCmd &c);

/* A VIRTIO_Q_COUNTERS object's values (Kobj::ctx), which the data path
 * counts. */
struct QCounters {
	uint64_t received_desc;
	uint64_t completed_desc;
	uint32_t error_cqes;
	uint32_t bad_desc_errors;
	uint32_t exceed_max_chain;
	uint32_t invalid_buffer;
};
QCounters &qcounters(Kobj &k);

} // namespace dvs::sim

#endif
