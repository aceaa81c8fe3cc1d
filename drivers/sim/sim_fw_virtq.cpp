/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VIRTIO_NET_Q general object (obj_type 0x000d): create, query and
 * modify with the layouts of DPDK's mlx5_prm.h (create_virtq_in,
 * virtio_net_q, virtio_q) and the checks DPDK's mlx5_devx_cmd_create_virtq
 * shows the device makes: a valid pd, a TIS (and the queue's counters
 * when it names them), three UMEMs each holding
 * umem_N_buffer_param_a * queue_size + umem_N_buffer_param_b bytes, a
 * power-of-two queue size, an index below max_num_virtio_queues, and only
 * the features the virtio emulation caps offer. The object keeps the
 * 192-byte virtio_net_q context as the device reports it on query; the
 * data path (sim_datapath.cpp) moves its hardware indexes, state and
 * error_type there.
 *
 * The queue holds the key virtio_q_mkey names. It goes RDY only with a
 * live key on its own PD through which the three rings are readable (the
 * used ring writable), each in one piece of the key and aligned as the
 * virtio spec (1.1, 2.6) requires of a split ring: the descriptor table
 * on 16 bytes, the available ring on 2, the used ring on 4.
 */
#include <cstring>

#include "dvs_sim.h"
#include "sim_datapath.h"
#include "sim_firmware.h"

namespace dvs::sim {

namespace {

constexpr size_t kCtxOff = DVSHARE_PRM_HDR_SIZE; /* virtio_net_q in the command */
constexpr uint64_t kSupported = DVSHARE_PRM_VIRTQ_MODIFY_STATE | DVSHARE_PRM_VIRTQ_MODIFY_ADDR |
				DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX |
				DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX |
				DVSHARE_PRM_VIRTQ_MODIFY_Q_TYPE |
				DVSHARE_PRM_VIRTQ_MODIFY_VERSION_1_0 |
				DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY | DVSHARE_PRM_VIRTQ_MODIFY_EVENT_MODE;

/* Byte @off of the command as stored in the object (which starts at the
 * command's virtio_net_q). */
uint8_t *field(Kobj &k, size_t off)
{
	return k.ctx + (off - kCtxOff);
}

bool pow2_size(uint16_t n)
{
	return n != 0 && (n & (n - 1)) == 0 && n <= DVS_SIM_MAX_QUEUE_SIZE;
}

/* Features the caps do not offer: packed rings, event modes other than
 * NO_MSIX, offloads (tso/csum). */
bool features_offered(const dvshare_prm_virtq &q, const uint8_t *in)
{
	return q.virtio_q_type == DVSHARE_PRM_VIRTQ_TYPE_SPLIT &&
	       q.event_mode == DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX &&
	       (dvshare_prm_get8(in, DVSHARE_PRM_VIRTQ_OFFLOADS) & 0xf0) == 0;
}

/* The three UMEMs: each live, big enough for the queue, and the range it
 * names inside the UMEM. */
bool umems_fit(const Ufile &u, const dvshare_prm_virtq &q, Kobj *umem[3])
{
	const uint64_t a[3] = { DVS_SIM_UMEM_A0, DVS_SIM_UMEM_A1, DVS_SIM_UMEM_A2 };
	const uint64_t b[3] = { DVS_SIM_UMEM_B0, DVS_SIM_UMEM_B1, DVS_SIM_UMEM_B2 };

	for (int i = 0; i < 3; i++) {
		umem[i] = u.table().by_id(q.umem[i].id, KobjType::Umem);
		if (umem[i] == nullptr || q.umem[i].size < a[i] * q.queue_size + b[i] ||
		    q.umem[i].offset > umem[i]->size ||
		    q.umem[i].size > umem[i]->size - q.umem[i].offset)
			return false;
	}
	return true;
}

/* The state changes Linux's mlx5_vdpa asks for (mlx5_vnet.c
 * is_valid_state_change): INIT -> RDY, RDY -> SUSPEND, and SUSPEND -> RDY
 * only on a device with freeze_to_rdy_supported (is_resumable), which the
 * sim does not report; DPDK's vdpa never resumes, it makes the queue
 * again. ERR is the device's to enter; nothing leaves it. Whatever no
 * driver asks for is refused: the firmware's answer is not known. */
bool transition_ok(uint8_t from, uint8_t to)
{
	return (from == DVSHARE_PRM_VIRTQ_STATE_INIT && to == DVSHARE_PRM_VIRTQ_STATE_RDY) ||
	       (from == DVSHARE_PRM_VIRTQ_STATE_RDY && to == DVSHARE_PRM_VIRTQ_STATE_SUSPEND) ||
	       (from == DVSHARE_PRM_VIRTQ_STATE_SUSPEND && to == DVSHARE_PRM_VIRTQ_STATE_RDY &&
		DVS_SIM_FREEZE_TO_RDY);
}

/* Copy the bytes [@off, @off + @len) of the command into the object. */
void take(Kobj &k, const uint8_t *in, size_t off, size_t len)
{
	memcpy(field(k, off), in + off, len);
}

/* Hold key @mkey (0: none) for queue @k, dropping the one it held. */
FwStatus hold_mkey(const Ufile &u, Kobj &k, uint32_t mkey)
{
	Kobj *key = mkey != 0 ? find_mkey(u, mkey) : nullptr;

	if (mkey != 0 && key == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_MKEY);
	if (key != nullptr)
		key->users++;
	Kobj *old = k.ref_mkey != 0 ? find_mkey(u, k.ref_mkey) : nullptr;
	if (old != nullptr && old->users > 0)
		old->users--;
	k.ref_mkey = mkey;
	return {};
}

/* The rings of @q readable through its key, the used ring writable, each
 * aligned as virtio 1.1 2.6 asks (split ring sizes: 16 * n, 6 + 2 * n,
 * 6 + 8 * n bytes). */
bool rings_ok(const Ufile &u, const dvshare_prm_virtq &q, const Kobj &key)
{
	const uint64_t n = q.queue_size;

	if (q.desc_addr % 16 != 0 || q.available_addr % 2 != 0 || q.used_addr % 4 != 0)
		return false;
	return mkey_holds(u, key, q.desc_addr, 16 * n, false) &&
	       mkey_holds(u, key, q.available_addr, 6 + 2 * n, false) &&
	       mkey_holds(u, key, q.used_addr, 6 + 8 * n, true);
}

/* Can @q (as it will be) go RDY? */
FwStatus ready_check(const Ufile &u, const Kobj &k, const dvshare_prm_virtq &q)
{
	if (q.mkey == 0)
		return bad_param(DVS_SIM_SYND_NO_MKEY);
	const Kobj *key = find_mkey(u, q.mkey);
	if (key == nullptr || mkey_ctx(*key).pd != q.pd)
		return bad_param(DVS_SIM_SYND_BAD_MKEY);
	if (!rings_ok(u, q, *key))
		return bad_param(DVS_SIM_SYND_BAD_RINGS);
	if (!dp_can_bind(u, q.queue_index, u.table().handle_of(k)))
		return bad_param(DVS_SIM_SYND_INDEX_TAKEN);
	return {};
}

} // namespace

FwStatus virtq_create(const Ufile &u, Kobj &k, const FwCmd &c)
{
	dvshare_prm_virtq q;
	Kobj *umem[3];

	if (c.inlen < DVSHARE_PRM_VIRTQ_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	dvshare_prm_virtq_parse(c.in, &q);
	if (q.state != DVSHARE_PRM_VIRTQ_STATE_INIT)
		return bad_param(DVS_SIM_SYND_BAD_STATE);
	if (!pow2_size(q.queue_size))
		return bad_param(DVS_SIM_SYND_BAD_QUEUE_SIZE);
	if (q.queue_index >= DVS_SIM_MAX_VIRTQ)
		return bad_param(DVS_SIM_SYND_BAD_QUEUE_INDEX);
	if (!features_offered(q, c.in))
		return bad_param(DVS_SIM_SYND_UNSUPPORTED);
	Kobj *pd = find_pd(u, q.pd);
	if (pd == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_PD);
	if (!umems_fit(u, q, umem))
		return bad_param(DVS_SIM_SYND_BAD_UMEM);
	/* Both drivers give every queue a TIS (NO_MSIX: tisn_or_qpn is the
	 * TIS) and, when offered, its own counters. */
	Kobj *tis = find_devx(u, q.tisn_or_qpn, DVSHARE_PRM_CMD_CREATE_TIS, 0);
	if (tis == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_TIS);
	Kobj *counters = nullptr;
	if (q.counter_set_id != 0) {
		counters = find_devx(u, q.counter_set_id, DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT,
				     DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
		if (counters == nullptr)
			return bad_param(DVS_SIM_SYND_BAD_COUNTERS);
	}
	k.ref_mkey = 0;
	FwStatus s = hold_mkey(u, k, q.mkey);
	if (!s.ok())
		return s;
	memcpy(k.ctx, c.in + kCtxOff, sizeof(k.ctx));
	memset(k.ctx, 0, 8); /* modify_field_select is not state */
	pd->users++;
	k.ref_pd = q.pd;
	tis->users++;
	k.ref_tis = q.tisn_or_qpn;
	if (counters != nullptr)
		counters->users++;
	k.ref_counters = q.counter_set_id;
	for (int i = 0; i < 3; i++) {
		umem[i]->users++;
		k.ref_umem[i] = q.umem[i].id;
	}
	return {};
}

FwStatus virtq_query(Kobj &k, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_VIRTQ_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	memcpy(c.out + kCtxOff, k.ctx, sizeof(k.ctx));
	return {};
}

FwStatus virtq_modify(const Ufile &u, Kobj &k, const FwCmd &c)
{
	dvshare_prm_virtq cur, want;

	if (c.inlen < DVSHARE_PRM_VIRTQ_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	const uint64_t sel = dvshare_prm_get64(c.in, DVSHARE_PRM_VIRTQ_MODIFY_SELECT);
	uint8_t stored[DVSHARE_PRM_VIRTQ_SIZE] = {};
	memcpy(stored + kCtxOff, k.ctx, sizeof(k.ctx));
	dvshare_prm_virtq_parse(stored, &cur);
	dvshare_prm_virtq_parse(c.in, &want);
	if (sel == 0 || (sel & ~kSupported) != 0)
		return bad_param(DVS_SIM_SYND_BAD_SELECT);
	/* Fields other than the state change only in INIT or SUSPEND
	 * (mlx5_vnet.c modifiable_virtqueue_fields). */
	if ((sel & ~DVSHARE_PRM_VIRTQ_MODIFY_STATE) != 0 &&
	    cur.state != DVSHARE_PRM_VIRTQ_STATE_INIT && cur.state != DVSHARE_PRM_VIRTQ_STATE_SUSPEND)
		return fw_error(DVSHARE_PRM_STATUS_BAD_RES_STATE, DVS_SIM_SYND_BAD_RES_STATE);
	if ((sel & DVSHARE_PRM_VIRTQ_MODIFY_Q_TYPE) && want.virtio_q_type != DVSHARE_PRM_VIRTQ_TYPE_SPLIT)
		return bad_param(DVS_SIM_SYND_UNSUPPORTED);
	if ((sel & DVSHARE_PRM_VIRTQ_MODIFY_EVENT_MODE) &&
	    want.event_mode != DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX)
		return bad_param(DVS_SIM_SYND_UNSUPPORTED);
	/* The queue as the modify would leave it. */
	dvshare_prm_virtq after = cur;
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY)
		after.mkey = want.mkey;
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_ADDR) {
		after.desc_addr = want.desc_addr;
		after.used_addr = want.used_addr;
		after.available_addr = want.available_addr;
	}
	if ((sel & DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY) && want.mkey != 0 &&
	    find_mkey(u, want.mkey) == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_MKEY);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_STATE) {
		if (!transition_ok(cur.state, want.state))
			return bad_param(DVS_SIM_SYND_BAD_STATE);
		if (want.state == DVSHARE_PRM_VIRTQ_STATE_RDY) {
			FwStatus s = ready_check(u, k, after);
			if (!s.ok())
				return s;
		}
	}
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY)
		hold_mkey(u, k, want.mkey);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_ADDR)
		take(k, c.in, DVSHARE_PRM_VIRTQ_DESC_ADDR, 24);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX)
		take(k, c.in, DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX, 2);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX)
		take(k, c.in, DVSHARE_PRM_VIRTQ_HW_USED_IDX, 2);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_VERSION_1_0)
		*field(k, DVSHARE_PRM_VIRTQ_VERSION) =
			(*field(k, DVSHARE_PRM_VIRTQ_VERSION) & ~0x40) |
			(c.in[DVSHARE_PRM_VIRTQ_VERSION] & 0x40);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY)
		take(k, c.in, DVSHARE_PRM_VIRTQ_MKEY, 4);
	if (sel & DVSHARE_PRM_VIRTQ_MODIFY_STATE) {
		*field(k, DVSHARE_PRM_VIRTQ_STATE) = want.state;
		if (want.state == DVSHARE_PRM_VIRTQ_STATE_RDY)
			dp_bind(u, cur.queue_index, u.table().handle_of(k));
	}
	/* A queue the data path serves is frozen outside RDY, and its
	 * translations may have changed: the engine looks again. */
	dp_changed(u);
	return {};
}

void virtq_release(const Ufile &u, Kobj &k)
{
	dvshare_prm_virtq q;
	uint8_t stored[DVSHARE_PRM_VIRTQ_SIZE] = {};

	memcpy(stored + kCtxOff, k.ctx, sizeof(k.ctx));
	dvshare_prm_virtq_parse(stored, &q);
	dp_unbind(u, q.queue_index, u.table().handle_of(k));
	hold_mkey(u, k, 0);
	for (uint32_t id : k.ref_umem) {
		Kobj *m = u.table().by_id(id, KobjType::Umem);
		if (m != nullptr && m->users > 0)
			m->users--;
	}
	drop_ref(u, k.ref_pd, DVSHARE_PRM_CMD_ALLOC_PD, 0);
	drop_ref(u, k.ref_tis, DVSHARE_PRM_CMD_CREATE_TIS, 0);
	drop_ref(u, k.ref_counters, DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT,
		 DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
}

} // namespace dvs::sim
