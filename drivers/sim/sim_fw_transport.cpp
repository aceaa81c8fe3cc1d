/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The objects a VIRTIO_NET_Q names besides its PD and UMEMs: the
 * transport domain, the TIS on it (ALLOC_TRANSPORT_DOMAIN, CREATE_TIS,
 * QUERY_TIS; layouts of DPDK's mlx5_prm.h alloc_transport_domain_out,
 * create_tis_in/out, tisc) and the queue's VIRTIO_Q_COUNTERS general
 * object. DPDK's vdpa/mlx5 and Linux's mlx5_vdpa make one domain and TIS
 * per device and, when general_obj_types offers it, one counters object
 * per queue. Firmware references are counted as for the PD: an object a
 * live object names is not destroyed (the sim's model, see doc/sim.md).
 */
#include <cstring>

#include "dvs_sim.h"
#include "sim_firmware.h"

namespace dvs::sim {

namespace {

constexpr size_t kTisOutSize = 16 + 8 + 160; /* query_tis_out: header, reserved, tisc */

} // namespace

Kobj *find_devx(const Ufile &u, uint32_t id, uint16_t create_op, uint16_t obj_type)
{
	Kobj *k = u.table().by_id(id, KobjType::DevxObj);

	return k != nullptr && k->create_op == create_op &&
			       (create_op != DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT ||
				k->obj_type == obj_type)
		       ? k
		       : nullptr;
}

void drop_ref(const Ufile &u, uint32_t id, uint16_t create_op, uint16_t obj_type)
{
	Kobj *k = id != 0 ? find_devx(u, id, create_op, obj_type) : nullptr;

	if (k != nullptr && k->users > 0)
		k->users--;
}

FwStatus alloc_td(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	k.id = u.table().make_id(handle, true);
	dvshare_prm_put24(c.out, 9, k.id);
	return {};
}

FwStatus create_tis(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	if (c.inlen < DVSHARE_PRM_CREATE_TIS_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	uint32_t td_id = dvshare_prm_get24(c.in, DVSHARE_PRM_TIS_TRANSPORT_DOMAIN);
	Kobj *td = find_devx(u, td_id, DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN, 0);
	if (td == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_TD);
	td->users++;
	k.ref_td = td_id;
	memcpy(k.ctx, c.in + DVSHARE_PRM_TIS_CTX, 160);
	k.id = u.table().make_id(handle, true);
	dvshare_prm_put24(c.out, 9, k.id);
	return {};
}

FwStatus query_tis(Kobj &k, const FwCmd &c)
{
	if (c.inlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	if (c.outlen < kTisOutSize)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	memcpy(c.out + 24, k.ctx, 160);
	return {};
}

QCounters &qcounters(Kobj &k)
{
	static_assert(sizeof(QCounters) <= sizeof(k.ctx));
	return *reinterpret_cast<QCounters *>(k.ctx);
}

FwStatus virtq_counters_create(const FwCmd &c)
{
	/* The counters start at 0 (the slot's context is zeroed); the data
	 * path counts the queue's descriptors into them. */
	if (c.inlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	return {};
}

FwStatus virtq_counters_query(const Kobj &k, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_VIRTQ_COUNTERS_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	const QCounters &q = qcounters(const_cast<Kobj &>(k));
	dvshare_prm_put64(c.out, DVSHARE_PRM_VQC_RECEIVED_DESC, q.received_desc);
	dvshare_prm_put64(c.out, DVSHARE_PRM_VQC_COMPLETED_DESC, q.completed_desc);
	dvshare_prm_put32(c.out, DVSHARE_PRM_VQC_ERROR_CQES, q.error_cqes);
	dvshare_prm_put32(c.out, DVSHARE_PRM_VQC_BAD_DESC_ERRORS, q.bad_desc_errors);
	dvshare_prm_put32(c.out, DVSHARE_PRM_VQC_EXCEED_MAX_CHAIN, q.exceed_max_chain);
	dvshare_prm_put32(c.out, DVSHARE_PRM_VQC_INVALID_BUFFER, q.invalid_buffer);
	return {};
}

} // namespace dvs::sim
