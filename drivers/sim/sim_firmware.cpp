/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Firmware commands: dispatch, QUERY_HCA_CAP, ALLOC_PD and the flow
 * counter (the queue's own objects: sim_fw_virtq.cpp, sim_fw_transport.cpp). Layouts: dvshare_prm.h (DPDK's mlx5_prm.h mlx5_ifc_*_bits).
 */
#include "sim_firmware.h"

#include <cstring>

#include "dvs_sim.h"
#include "sim_datapath.h"

namespace dvs::sim {

namespace {

/* The general capability the sim reports. */
void put_general_caps(const Ufile &u, uint8_t *cap)
{
	dvshare_prm_put16(cap, DVSHARE_PRM_CAP_VHCA_ID, static_cast<uint16_t>(u.hdr()->dev_index));
	dvshare_prm_put8(cap, DVSHARE_PRM_CAP_LOG_MAX_PD, DVS_SIM_LOG_MAX_PD);
	dvshare_prm_put8(cap, DVSHARE_PRM_CAP_LOG_MAX_MKEY, DVS_SIM_LOG_MAX_MKEY);
	dvshare_prm_put8(cap, DVSHARE_PRM_CAP_LOG_MAX_KLM_LIST_SIZE, DVS_SIM_LOG_MAX_KLM);
	/* No bulk counters: flow_counter_bulk_alloc and its log stay 0. */
	dvshare_prm_put64(cap, DVSHARE_PRM_CAP_GENERAL_OBJ_TYPES,
			  1ull << DVSHARE_PRM_OBJ_VIRTIO_NET_Q |
				  1ull << DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
}

/* The virtio emulation capability: what sim_fw_virtq.cpp implements. */
void put_virtio_caps(uint8_t *cap)
{
	const uint32_t umem[3][2] = { { DVS_SIM_UMEM_A0, DVS_SIM_UMEM_B0 },
				      { DVS_SIM_UMEM_A1, DVS_SIM_UMEM_B1 },
				      { DVS_SIM_UMEM_A2, DVS_SIM_UMEM_B2 } };

	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_FLAGS, 1u << 5); /* virtio_version_1_0 */
	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_EVENT_MODE, 1u << DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX);
	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_QUEUE_TYPE, 1u << DVSHARE_PRM_VIRTQ_TYPE_SPLIT);
	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_LOG_DB_STRIDE, DVS_SIM_LOG_DB_STRIDE);
	/* vnet_modify_ext, virtio_net_q_addr_modify, virtio_q_index_modify,
	 * and a doorbell BAR of 1 << 12 pages: DVS_SIM_VAR_PAGES VARs. */
	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_DB_BAR, 0xe0 | 12);
	dvshare_prm_put64(cap, DVSHARE_PRM_VCAP_DB_BAR_OFFSET, DVS_SIM_DOORBELL_BAR_OFFSET);
	dvshare_prm_put24(cap, DVSHARE_PRM_VCAP_MAX_QUEUES, DVS_SIM_MAX_VIRTQ);
	dvshare_prm_put8(cap, DVSHARE_PRM_VCAP_FREEZE, DVS_SIM_FREEZE_TO_RDY << 3);
	for (int i = 0; i < 3; i++) {
		dvshare_prm_put32(cap, DVSHARE_PRM_VCAP_UMEM_PARAMS + 8 * i, umem[i][0]);
		dvshare_prm_put32(cap, DVSHARE_PRM_VCAP_UMEM_PARAMS + 8 * i + 4, umem[i][1]);
	}
}

FwStatus query_hca_cap(const Ufile &u, const FwCmd &c)
{
	uint16_t type = dvshare_prm_get16(c.in, 6) >> 1;

	if (c.outlen < DVSHARE_PRM_HCA_CAP_OUT_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	uint8_t *cap = c.out + DVSHARE_PRM_HCA_CAP_OFF;
	switch (type) {
	case DVSHARE_PRM_CAP_GENERAL:
		put_general_caps(u, cap);
		return {};
	case DVSHARE_PRM_CAP_VIRTIO_EMULATION:
		put_virtio_caps(cap);
		return {};
	default:
		return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_CAP);
	}
}

FwStatus alloc_pd(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	k.id = u.table().make_id(handle, true);
	dvshare_prm_put24(c.out, 9, k.id);
	return {};
}

FwStatus alloc_flow_counter(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	uint32_t pd = dvshare_prm_get24(c.in, 9);

	/* The caps offer no bulk allocation. */
	if ((dvshare_prm_get8(c.in, 14) & 0x1f) != 0 || dvshare_prm_get8(c.in, 15) != 0)
		return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_UNSUPPORTED);
	Kobj *p = pd != 0 ? find_pd(u, pd) : nullptr;
	if (pd != 0 && p == nullptr)
		return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_PD);
	if (p != nullptr)
		p->users++;
	k.ref_pd = pd;
	k.id = u.table().make_id(handle, false);
	dvshare_prm_put32(c.out, 8, k.id);
	return {};
}

FwStatus query_flow_counter(Kobj &k, const FwCmd &c)
{
	if (c.inlen < DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	uint32_t flags = dvshare_prm_get32(c.in, 24);
	/* dump_to_memory needs an mkey, which the sim does not model. */
	if ((flags & 0x40000000u) != 0 || (flags & 0x3fffffffu) > 1)
		return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_UNSUPPORTED);
	if (c.outlen < DVSHARE_PRM_FLOW_COUNTER_OUT_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	dvshare_prm_put64(c.out, 16, k.packets);
	dvshare_prm_put64(c.out, 24, k.octets);
	if ((flags & 0x80000000u) != 0)
		k.packets = k.octets = 0;
	return {};
}

} // namespace

Kobj *find_pd(const Ufile &u, uint32_t pd)
{
	return find_devx(u, pd, DVSHARE_PRM_CMD_ALLOC_PD, 0);
}

void fw_reply(const FwCmd &c, FwStatus s)
{
	dvshare_prm_put8(c.out, 0, s.status);
	dvshare_prm_put32(c.out, 4, s.syndrome);
}

FwStatus fw_create(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	const uint16_t op = dvshare_prm_opcode(c.in);

	if (c.outlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	k.create_op = op;
	switch (op) {
	case DVSHARE_PRM_CMD_ALLOC_PD:
		return alloc_pd(u, handle, k, c);
	case DVSHARE_PRM_CMD_CREATE_MKEY:
		return mkey_create(u, handle, k, c);
	case DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER:
		return alloc_flow_counter(u, handle, k, c);
	case DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN:
		return alloc_td(u, handle, k, c);
	case DVSHARE_PRM_CMD_CREATE_TIS:
		return create_tis(u, handle, k, c);
	case DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT: {
		k.obj_type = dvshare_prm_get16(c.in, 6);
		k.log_obj_range = dvshare_prm_get8(c.in, 12) & 0x1f;
		FwStatus s;
		if (k.obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q)
			s = virtq_create(u, k, c);
		else if (k.obj_type == DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS)
			s = virtq_counters_create(c);
		else
			return fw_error(DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_OBJ_TYPE);
		if (s.ok()) {
			k.id = u.table().make_id(handle, false);
			dvshare_prm_put32(c.out, 8, k.id);
		}
		return s;
	}
	default:
		/* The kernel passes it on; the sim's firmware does not know it. */
		return fw_error(DVSHARE_PRM_STATUS_BAD_OP, DVS_SIM_SYND_BAD_OPCODE);
	}
}

FwStatus fw_query(const Ufile &, Kobj &k, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	switch (k.create_op) {
	case DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER:
		return query_flow_counter(k, c);
	case DVSHARE_PRM_CMD_CREATE_TIS:
		return query_tis(k, c);
	case DVSHARE_PRM_CMD_CREATE_MKEY:
		return mkey_query(k, c);
	case DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT:
		return k.obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q ? virtq_query(k, c)
								   : virtq_counters_query(k, c);
	default:
		return fw_error(DVSHARE_PRM_STATUS_BAD_OP, DVS_SIM_SYND_BAD_OPCODE);
	}
}

FwStatus fw_modify(const Ufile &u, Kobj &k, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	if (k.create_op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT &&
	    k.obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q)
		return virtq_modify(u, k, c);
	return fw_error(DVSHARE_PRM_STATUS_BAD_OP, DVS_SIM_SYND_BAD_OPCODE);
}

FwStatus fw_destroy(const Ufile &u, Kobj &k)
{
	/* The sim's firmware keeps an object that a live one still names
	 * (a PD, domain, TIS, counters or UMEM): doc/sim.md. */
	if (k.users != 0)
		return fw_error(DVSHARE_PRM_STATUS_RESOURCE_BUSY, DVS_SIM_SYND_IN_USE);
	switch (k.create_op) {
	case DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER:
		drop_ref(u, k.ref_pd, DVSHARE_PRM_CMD_ALLOC_PD, 0);
		dp_forget_counter(u, k.id);
		return {};
	case DVSHARE_PRM_CMD_CREATE_TIS:
		drop_ref(u, k.ref_td, DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN, 0);
		return {};
	case DVSHARE_PRM_CMD_CREATE_MKEY:
		mkey_release(u, k);
		return {};
	case DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT:
		if (k.obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q)
			virtq_release(u, k);
		return {};
	default:
		return {};
	}
}

FwStatus fw_general(const Ufile &u, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_HDR_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	if (dvshare_prm_opcode(c.in) == DVSHARE_PRM_CMD_QUERY_HCA_CAP)
		return query_hca_cap(u, c);
	return fw_error(DVSHARE_PRM_STATUS_BAD_OP, DVS_SIM_SYND_BAD_OPCODE);
}

} // namespace dvs::sim
