/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory keys (CREATE_MKEY, QUERY_MKEY and the kernel's DESTROY_MKEY),
 * layouts of DPDK's mlx5_prm.h (create_mkey_in, mkc, klm) and the
 * kernel's query_mkey_in/out. Two modes are modelled, the two the queue
 * drivers use: a direct key over a UMEM (MTT with mkey_umem_valid, which
 * the kernel sets: devx.c devx_handle_mkey_create) and an indirect key
 * whose KLM entries name direct keys (DPDK's mlx5_vdpa_mem.c, Linux's
 * mlx5_vdpa mr.c). A key holds its PD, its UMEM or the keys its entries
 * name while it lives; a queue holds the key it names.
 *
 * Every refusal here is BAD_PARAM (or a length status) with a sim
 * syndrome: no driver source shows what a firmware answers, so each is
 * the sim's own (doc/sim.md).
 */
#include <cstring>

#include <infiniband/verbs.h>

#include "dvs_sim.h"
#include "sim_firmware.h"

namespace dvs::sim {

namespace {

/* The direct key's UMEM: live, and holding the range. */
FwStatus direct_umem(const Ufile &u, const dvshare_prm_mkey &m, Kobj **umem)
{
	*umem = u.table().by_id(m.umem_id, KobjType::Umem);
	if (!m.umem_valid || *umem == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_UMEM);
	if (m.umem_offset > (*umem)->size || m.len > (*umem)->size - m.umem_offset)
		return bad_param(DVS_SIM_SYND_BAD_MKEY_RANGE);
	/* A key the device writes through needs memory pinned writable. */
	if (m.lw && !((*umem)->access & IBV_ACCESS_LOCAL_WRITE))
		return bad_param(DVS_SIM_SYND_BAD_MKEY_ACCESS);
	return {};
}

/* The entries of an indirect key: each names a live direct key on the
 * same PD and a range inside it; together they cover the key's length.
 * Empty entries (byte_count 0) are the padding DPDK sends. */
FwStatus klm_entries(const Ufile &u, const dvshare_prm_mkey &m, const FwCmd &c, MkeyCtx &mc)
{
	const uint32_t n = dvshare_prm_get32(c.in, DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL);
	uint64_t covered = 0;

	if (n == 0 || n > kMaxKlm)
		return bad_param(DVS_SIM_SYND_BAD_KLM);
	if (c.inlen < DVSHARE_PRM_MKEY_SIZE + static_cast<size_t>(n) * DVSHARE_PRM_KLM_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	mc.nklm = 0;
	for (uint32_t i = 0; i < n; i++) {
		dvshare_prm_klm e;
		dvshare_prm_klm_parse(c.in, i, &e);
		if (e.byte_count == 0)
			continue;
		Kobj *child = find_mkey(u, e.mkey);
		if (child == nullptr || mkey_ctx(*child).mode != DVSHARE_PRM_MKEY_MODE_MTT ||
		    mkey_ctx(*child).pd != m.pd)
			return bad_param(DVS_SIM_SYND_BAD_KLM);
		const MkeyCtx &cc = mkey_ctx(*child);
		if (e.address < cc.start || e.address - cc.start > cc.len ||
		    e.byte_count > cc.len - (e.address - cc.start))
			return bad_param(DVS_SIM_SYND_BAD_MKEY_RANGE);
		mc.klm[mc.nklm++] = { e.byte_count, e.mkey, e.address };
		covered += e.byte_count;
	}
	if (mc.nklm == 0 || covered != m.len)
		return bad_param(DVS_SIM_SYND_BAD_MKEY_RANGE);
	return {};
}

void take_refs(const Ufile &u, Kobj &k, Kobj *pd, Kobj *umem)
{
	MkeyCtx &mc = mkey_ctx(k);

	pd->users++;
	k.ref_pd = mc.pd;
	if (umem != nullptr) {
		umem->users++;
		k.ref_umem[0] = umem->id;
	}
	for (uint32_t i = 0; i < mc.nklm; i++)
		find_mkey(u, mc.klm[i].mkey)->users++;
}

} // namespace

MkeyCtx &mkey_ctx(Kobj &k)
{
	static_assert(sizeof(MkeyCtx) <= sizeof(k.ctx));
	return *reinterpret_cast<MkeyCtx *>(k.ctx);
}

const MkeyCtx &mkey_ctx(const Kobj &k)
{
	return *reinterpret_cast<const MkeyCtx *>(k.ctx);
}

Kobj *find_mkey(const Ufile &u, uint32_t mkey)
{
	Kobj *k = find_devx(u, mkey >> 8, DVSHARE_PRM_CMD_CREATE_MKEY, 0);

	return k != nullptr && mkey_ctx(*k).key == (mkey & 0xffu) ? k : nullptr;
}

FwStatus mkey_create(const Ufile &u, uint32_t handle, Kobj &k, const FwCmd &c)
{
	dvshare_prm_mkey m;
	Kobj *umem = nullptr;

	if (c.inlen < DVSHARE_PRM_MKEY_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_INPUT_LEN, DVS_SIM_SYND_INPUT_LEN);
	dvshare_prm_mkey_parse(c.in, &m);
	MkeyCtx mc{};
	mc.mode = m.access_mode;
	mc.lr = m.lr;
	mc.lw = m.lw;
	mc.rr = m.rr;
	mc.rw = m.rw;
	mc.key = m.key;
	mc.log_page_size = m.log_page_size;
	mc.pd = m.pd;
	mc.qpn = m.qpn;
	mc.translations = m.translations;
	mc.start = m.start_addr;
	mc.len = m.len;
	if (m.len == 0 || m.start_addr + m.len < m.start_addr ||
	    (dvshare_prm_get8(c.in, DVSHARE_PRM_MKEY_LENGTH64) & 0x80) != 0)
		return bad_param(DVS_SIM_SYND_BAD_MKEY_RANGE);
	Kobj *pd = find_pd(u, m.pd);
	if (pd == nullptr)
		return bad_param(DVS_SIM_SYND_BAD_PD);
	FwStatus s;
	switch (m.access_mode) {
	case DVSHARE_PRM_MKEY_MODE_MTT:
		s = direct_umem(u, m, &umem);
		mc.umem_id = m.umem_id;
		mc.umem_off = m.umem_offset;
		break;
	case DVSHARE_PRM_MKEY_MODE_KLM:
		s = klm_entries(u, m, c, mc);
		break;
	default: /* PA (the kernel's), KSM, ICM: not modelled */
		s = bad_param(DVS_SIM_SYND_UNSUPPORTED);
		break;
	}
	if (!s.ok())
		return s;
	mkey_ctx(k) = mc;
	take_refs(u, k, pd, umem);
	k.id = u.table().make_id(handle, true);
	dvshare_prm_put24(c.out, 9, k.id);
	return {};
}

FwStatus mkey_query(Kobj &k, const FwCmd &c)
{
	if (c.outlen < DVSHARE_PRM_MKEY_QUERY_OUT_SIZE)
		return fw_error(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN, DVS_SIM_SYND_OUTPUT_LEN);
	const MkeyCtx &mc = mkey_ctx(k);
	dvshare_prm_mkey m{};
	uint8_t cmd[DVSHARE_PRM_MKEY_SIZE];
	m.access_mode = mc.mode;
	m.lr = mc.lr;
	m.lw = mc.lw;
	m.rr = mc.rr;
	m.rw = mc.rw;
	m.key = mc.key;
	m.qpn = mc.qpn;
	m.pd = mc.pd;
	m.start_addr = mc.start;
	m.len = mc.len;
	m.log_page_size = mc.log_page_size;
	/* The mkc sits at byte 16 of both the command and the output. */
	dvshare_prm__mkey_put(cmd, &m);
	dvshare_prm_put32(cmd, DVSHARE_PRM_MKEY_TRANSLATIONS, mc.translations);
	memcpy(c.out + DVSHARE_PRM_MKEY_MKC, cmd + DVSHARE_PRM_MKEY_MKC, 64);
	return {};
}

void mkey_release(const Ufile &u, Kobj &k)
{
	const MkeyCtx &mc = mkey_ctx(k);

	drop_ref(u, k.ref_pd, DVSHARE_PRM_CMD_ALLOC_PD, 0);
	if (k.ref_umem[0] != 0) {
		Kobj *m = u.table().by_id(k.ref_umem[0], KobjType::Umem);
		if (m != nullptr && m->users > 0)
			m->users--;
	}
	for (uint32_t i = 0; i < mc.nklm; i++) {
		Kobj *child = find_mkey(u, mc.klm[i].mkey);
		if (child != nullptr && child->users > 0)
			child->users--;
	}
}

int mkey_pieces(const Ufile &u, const Kobj &k, MemPiece *out)
{
	const MkeyCtx &mc = mkey_ctx(k);

	if (mc.mode == DVSHARE_PRM_MKEY_MODE_MTT) {
		const Kobj *umem = u.table().by_id(mc.umem_id, KobjType::Umem);
		if (umem == nullptr)
			return 0;
		out[0] = { mc.start, mc.start + mc.len, umem, mc.umem_off, mc.lr != 0, mc.lw != 0 };
		return 1;
	}
	uint64_t at = mc.start;
	int n = 0;
	for (uint32_t i = 0; i < mc.nklm; i++) {
		const Kobj *child = find_mkey(u, mc.klm[i].mkey);
		if (child == nullptr)
			return 0;
		const MkeyCtx &cc = mkey_ctx(*child);
		const Kobj *umem = u.table().by_id(cc.umem_id, KobjType::Umem);
		if (umem == nullptr)
			return 0;
		/* Rights through both keys. */
		out[n++] = { at, at + mc.klm[i].byte_count, umem,
			     cc.umem_off + (mc.klm[i].address - cc.start), mc.lr && cc.lr,
			     mc.lw && cc.lw };
		at += mc.klm[i].byte_count;
	}
	return n;
}

bool mkey_holds(const Ufile &u, const Kobj &k, uint64_t addr, uint64_t len, bool write)
{
	MemPiece p[kMaxKlm];
	int n = mkey_pieces(u, k, p);

	for (int i = 0; i < n; i++)
		if (addr >= p[i].lo && addr < p[i].hi && len <= p[i].hi - addr)
			return p[i].read && (!write || p[i].write);
	return false;
}

} // namespace dvs::sim
