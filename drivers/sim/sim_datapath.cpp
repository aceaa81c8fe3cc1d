/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's data path (sim_datapath.h): doorbells arm queue indexes,
 * the engine serves the armed ones.
 *
 * Every access the device makes to driver memory is translated through
 * the queue's mkey and bounds-checked before it is made; a ring or
 * descriptor the driver got wrong moves that queue to ERR with its
 * error_type and counter, never touches memory outside the key, and
 * leaves the other queues flowing. Each descriptor and ring entry is read
 * once into a local copy, so a driver rewriting them during a pass sees
 * one reading or the other, never a mix; every index and chain is bounded
 * by the queue size, as DPDK's lib/vhost bounds them, and a TX packet by
 * the port's largest frame, as a NIC bounds it.
 *
 * A queue goes to ERR as the last thing its turn does: what the device
 * finished before the bad entry (used entries, indexes, counters) is
 * published first, and nothing of the queue is touched after.
 *
 * Each queue is served in a turn of its own (EngineTurn): control calls
 * (QUERY, MODIFY, a destroy) wait for at most the turn in progress, so
 * when they return the engine has stopped using the queue and its
 * memory. A turn is bounded by a packet budget and by a deficit in
 * bytes (deficit round robin: each packet, descriptor and byte copied
 * costs), so a queue of large or long-chained packets gets the engine
 * for no longer than a queue of small ones, as a NIC's scheduler shares
 * its queues.
 */
#include "sim_datapath.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <ctime>
#include <vector>

#include <endian.h>

#include "dvs_sim.h"
#include "sim_context.h"
#include "sim_firmware.h"
#include "sim_var_pages.h"

namespace dvs::sim {

namespace {

constexpr uint32_t kDbWord = DVS_SIM_DB_OFFSET / 4;
constexpr uint32_t kNetHdr = 12;       /* virtio_net_hdr_v1 */
constexpr uint32_t kBudget = 256;      /* packets per queue per turn */
constexpr uint32_t kIdlePasses = 1024; /* passes polled without work before kicks are asked for */
constexpr size_t kCtx = DVSHARE_PRM_HDR_SIZE; /* virtio_net_q's offset in a command */
/* A turn's deficit, and what its work costs, in bytes copied. A packet's
 * fixed work is charged as 64 bytes, a descriptor's walk as 32: what
 * bounds a turn is that nothing is free, so a flood of chains of tiny or
 * oversized descriptors pays for its walks as a flood of frames pays for
 * its copies. The longest turn a control call waited for under such a
 * flood: doc/benchmarks.md, "Hostile drivers". */
constexpr int64_t kQuantum = 32 * 1024;
constexpr int64_t kPacketCost = 64, kDescCost = 32;
constexpr uint32_t kMaxFrame = DVS_SIM_MAX_MTU + DVS_SIM_FRAME_OVERHEAD;
/* Fragments of one packet, at most: every fragment but one per key piece
 * of the last descriptor holds a byte of the header or the frame. */
constexpr size_t kMaxFrags = kNetHdr + kMaxFrame + kMaxKlm;
/* A fence up this long is looked at: its raiser may have died. */
constexpr uint64_t kFenceCheckNs = 100'000'000;
constexpr uint8_t kOversize = 0xff;    /* walk(): past the largest frame (not an error) */

/* Split rings, virtio 1.1 2.6, little-endian (<linux/virtio_ring.h> does
 * not build as C++). */
struct VringDesc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
struct VringUsedElem {
	uint32_t id;
	uint32_t len;
};
/* flags, idx, then the entries (and the event word, never used here). */
struct VringAvail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[1];
};
struct VringUsed {
	uint16_t flags;
	uint16_t idx;
	VringUsedElem ring[1];
};
constexpr uint16_t kDescNext = 1, kDescWrite = 2, kDescIndirect = 4;
constexpr uint16_t kUsedNoNotify = 1;

template <typename T> T load(const T &v, std::memory_order o = std::memory_order_relaxed)
{
	return std::atomic_ref<const T>(v).load(o);
}

template <typename T> void store(T &v, T x, std::memory_order o = std::memory_order_relaxed)
{
	std::atomic_ref<T>(v).store(x, o);
}

template <typename T> void add(T &v, T x)
{
	std::atomic_ref<T>(v).fetch_add(x, std::memory_order_relaxed);
}

/* One writer (the engine in its turn), readers without a lock: a plain
 * add made of an atomic load and store, no locked instruction. */
template <typename T> void bump(T &v, T x)
{
	store(v, static_cast<T>(load(v) + x));
}

uint64_t now_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

/* A piece of the queue's key, as this process reaches it: host address
 * of key address a is base + a. */
struct Span {
	uint64_t lo, hi;
	uintptr_t base;
	bool read, write;
};

struct Frag {
	uint8_t *p;
	uint32_t len;
};

/* The engine's view of one queue index, rebuilt when DpState::gen moves. */
struct Queue {
	uint64_t gen = 0;       /* the gen it was built at; 0: never */
	bool ready = false;     /* RDY, and its memory reachable: serve it */
	Kobj *obj = nullptr;
	QCounters *ctr = nullptr;
	Kobj *flow = nullptr;   /* TX: the steering's flow counter */
	uint16_t route = 0;     /* TX: the RX index it delivers to */
	uint16_t size = 0, mask = 0;
	VringDesc *desc = nullptr;
	VringAvail *avail = nullptr;
	VringUsed *used = nullptr;
	uint16_t hw_avail = 0, hw_used = 0;
	Span span[kMaxKlm] = {};
	int nspan = 0;
	uint32_t idle = 0;
	bool quiet = false;     /* kUsedNoNotify set by the engine */
	int64_t credit = 0;     /* TX: the turn's deficit (kept across rebuilds) */
};

uint8_t *ctx_field(Kobj &k, size_t off)
{
	return k.ctx + (off - kCtx);
}

uint8_t state_of(Kobj &k)
{
	return load(*ctx_field(k, DVSHARE_PRM_VIRTQ_STATE)) & 0xf;
}

/* Translate [@addr, @addr + @len) through the spans, appending the host
 * fragments; false if any byte is outside the key or lacks the right. */
bool xlate(const Queue &q, uint64_t addr, uint32_t len, bool write, std::vector<Frag> &out)
{
	while (len != 0) {
		const Span *s = nullptr;
		for (int i = 0; i < q.nspan; i++)
			if (addr >= q.span[i].lo && addr < q.span[i].hi) {
				s = &q.span[i];
				break;
			}
		if (s == nullptr || !s->read || (write && !s->write))
			return false;
		uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(len, s->hi - addr));
		out.push_back({ reinterpret_cast<uint8_t *>(s->base + addr), n });
		addr += n;
		len -= n;
	}
	return true;
}

/* One host pointer for a whole ring: it lies in one span (the RDY check). */
void *ring_at(const Queue &q, uint64_t addr, uint64_t len, bool write)
{
	for (int i = 0; i < q.nspan; i++) {
		const Span &s = q.span[i];
		if (addr >= s.lo && addr < s.hi && len <= s.hi - addr && s.read &&
		    (!write || s.write))
			return reinterpret_cast<void *>(s.base + addr);
	}
	return nullptr;
}

/* Copy the packet after the TX header into the RX fragments after a
 * fresh header: no offload, one buffer (num_buffers 1, as virtio 1.0 asks
 * of a device without MRG_RXBUF). A driver may point a TX and an RX
 * buffer of one key at the same bytes: memmove keeps that defined (the
 * bytes delivered are then the TX buffer's as the copy read them). */
void copy_packet(const std::vector<Frag> &tx, const std::vector<Frag> &rx, uint32_t pkt)
{
	uint8_t hdr[kNetHdr] = {};
	uint16_t one = htole16(1);
	memcpy(hdr + 10, &one, sizeof(one));
	if (tx.size() == 1 && rx.size() == 1) { /* the common case: one buffer each */
		memmove(rx[0].p + kNetHdr, tx[0].p + kNetHdr, pkt);
		memcpy(rx[0].p, hdr, kNetHdr);
		return;
	}
	size_t ri = 0, roff = 0;
	auto put = [&](const uint8_t *src, uint32_t n) {
		while (n != 0) {
			uint32_t room = rx[ri].len - static_cast<uint32_t>(roff);
			if (room == 0) {
				ri++;
				roff = 0;
				continue;
			}
			uint32_t c = std::min(room, n);
			memmove(rx[ri].p + roff, src, c);
			roff += c;
			src += c;
			n -= c;
		}
	};
	/* The frame first, after the header's room; the header last, as it
	 * may lie over TX bytes not yet read. */
	uint32_t skip = kNetHdr;
	roff = kNetHdr;
	while (ri < rx.size() && roff >= rx[ri].len) {
		roff -= rx[ri].len;
		ri++;
	}
	for (const Frag &f : tx) {
		uint32_t s = std::min(skip, f.len);
		skip -= s;
		put(f.p + s, f.len - s);
	}
	ri = 0;
	roff = 0;
	put(hdr, kNetHdr);
}

} // namespace

/* ------------------------------------------------------------ engine */

struct DataPath::Impl {
	const Ufile &u;
	const uint64_t token;   /* this process (process_token()) */
	uint64_t gen = 0;       /* DpState::gen of this turn */
	DpCounts *counts;
	Queue q[kMaxVirtq];
	std::vector<Frag> tx, rx;
	uint64_t fenced_since = 0; /* first refused turn of a run of them (0: none) */
	uint32_t fenced_turns = 0;

	Impl(const Ufile &uf, DpCounts *c) : u(uf), token(process_token()), counts(c)
	{
		/* Never grown in a turn: no allocation on the data path. */
		tx.reserve(kMaxFrags);
		rx.reserve(kMaxFrags);
	}

	DpState &dp() const { return u.dp(); }

	void disarm(uint16_t i)
	{
		std::atomic_ref<uint64_t>(dp().armed[i / 64])
			.fetch_and(~(1ull << (i % 64)), std::memory_order_relaxed);
	}

	void arm(uint32_t v)
	{
		if (v >= kMaxVirtq) {
			add<uint64_t>(dp().stray_kicks, 1);
			return;
		}
		add<uint64_t>(dp().vq[v].kicks, 1);
		std::atomic_ref<uint64_t>(dp().armed[v / 64])
			.fetch_or(1ull << (v % 64), std::memory_order_relaxed);
	}

	/* Any polled doorbell not idle? Plain loads, no lock: an idle pass
	 * never touches what other processes' control calls need. */
	bool doorbell_pending() const
	{
		for (uint32_t w = 0; w < kVarPages / 64; w++)
			for (uint64_t b = load(dp().var_pages[w]); b != 0; b &= b - 1) {
				uint32_t p = w * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
				if (load(u.var_words(p)[kDbWord]) != DVS_SIM_DB_IDLE)
					return true;
			}
		return false;
	}

	/* In a turn, so no page is freed and handed to a new VAR halfway:
	 * each kick counts on the page it was written to. */
	unsigned int take_doorbells()
	{
		unsigned int kicks = 0;

		for (uint32_t w = 0; w < kVarPages / 64; w++)
			for (uint64_t b = load(dp().var_pages[w]); b != 0; b &= b - 1) {
				uint32_t p = w * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
				std::atomic_ref<uint32_t> reg(u.var_words(p)[kDbWord]);
				if (reg.load(std::memory_order_relaxed) == DVS_SIM_DB_IDLE)
					continue;
				uint32_t v = reg.exchange(DVS_SIM_DB_IDLE, std::memory_order_acquire);
				if (v == DVS_SIM_DB_IDLE)
					continue;
				PageState &ps = u.page(p);
				add<uint64_t>(ps.kicks, 1);
				store(ps.last, v);
				arm(v);
				kicks++;
			}
		return kicks;
	}

	bool any_armed() const
	{
		for (uint64_t w : dp().armed)
			if (load(w) != 0)
				return true;
		return false;
	}

	/* The port's largest frame: its MTU with an Ethernet header and one
	 * VLAN tag. */
	uint32_t max_frame() const
	{
		return std::min(load(dp().mtu), static_cast<uint32_t>(DVS_SIM_MAX_MTU)) +
		       DVS_SIM_FRAME_OVERHEAD;
	}

	/* ------------------------------------------------ the queue's view */

	void set_err(Queue &q, uint8_t type, uint32_t QCounters::*counter)
	{
		uint8_t *st = ctx_field(*q.obj, DVSHARE_PRM_VIRTQ_STATE);
		store(*st, static_cast<uint8_t>((load(*st) & 0xf0) | DVSHARE_PRM_VIRTQ_STATE_ERR));
		store(*ctx_field(*q.obj, DVSHARE_PRM_VIRTQ_ERROR_TYPE), type);
		if (q.ctr != nullptr)
			bump(q.ctr->*counter, 1u);
		q.ready = false;
		counts->errors++;
	}

	/* Build the view of index @i from the shared state. */
	void rebuild(Queue &q, uint16_t i)
	{
		const int64_t credit = q.credit;
		q = Queue{};
		q.gen = gen;
		q.credit = credit;
		const VqSlot &slot = dp().vq[i];
		if (slot.handle == HandleTable::kNone)
			return;
		Kobj *k = u.table().at(slot.handle);
		if (k == nullptr)
			return;
		q.obj = k;
		uint8_t cmd[DVSHARE_PRM_VIRTQ_SIZE] = {};
		memcpy(cmd + kCtx, k->ctx, sizeof(k->ctx));
		dvshare_prm_virtq v;
		dvshare_prm_virtq_parse(cmd, &v);
		if (v.counter_set_id != 0) {
			Kobj *c = find_devx(u, v.counter_set_id, DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT,
					    DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
			q.ctr = c != nullptr ? &qcounters(*c) : nullptr;
		}
		if (v.state != DVSHARE_PRM_VIRTQ_STATE_RDY)
			return;
		const Kobj *key = find_mkey(u, v.mkey);
		MemPiece p[kMaxKlm];
		int n = key != nullptr ? mkey_pieces(u, *key, p) : 0;
		for (int j = 0; j < n; j++) {
			if (p[j].umem->owner_token != token) {
				counts->unreachable++;
				return; /* another process's memory: its own engine serves it */
			}
			if (p[j].umem->fenced) {
				set_err(q, DVS_SIM_VQ_ERR_INVALID_BUFFER, &QCounters::invalid_buffer);
				return;
			}
			q.span[j] = { p[j].lo, p[j].hi, p[j].umem->addr + p[j].umem_off - p[j].lo,
				      p[j].read, p[j].write };
		}
		q.nspan = n;
		q.size = v.queue_size;
		q.mask = static_cast<uint16_t>(v.queue_size - 1);
		q.desc = static_cast<VringDesc *>(ring_at(q, v.desc_addr, 16ull * q.size, false));
		q.avail = static_cast<VringAvail *>(ring_at(q, v.available_addr, 6 + 2ull * q.size, false));
		q.used = static_cast<VringUsed *>(ring_at(q, v.used_addr, 6 + 8ull * q.size, true));
		if (q.desc == nullptr || q.avail == nullptr || q.used == nullptr) {
			set_err(q, DVS_SIM_VQ_ERR_INVALID_BUFFER, &QCounters::invalid_buffer);
			return;
		}
		if (i % 2 == 1) {
			q.route = slot.route == kNoRoute ? static_cast<uint16_t>(i - 1)
							 : static_cast<uint16_t>(slot.route);
			q.flow = slot.flow_counter != 0
					 ? find_devx(u, slot.flow_counter, DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, 0)
					 : nullptr;
		} else {
			/* An RX queue is read when a packet comes: the device
			 * never needs its kicks. */
			store(q.used->flags, htole16(kUsedNoNotify));
			q.quiet = true;
		}
		q.ready = true;
	}

	/* The view of @i, current and with its indexes read: nullptr when it
	 * is not to be served. */
	Queue *view(uint16_t i)
	{
		Queue &q = this->q[i];

		if (q.gen != gen)
			rebuild(q, i);
		if (!q.ready)
			return nullptr;
		/* Another engine, or a modify in SUSPEND, may have moved them. */
		if (state_of(*q.obj) != DVSHARE_PRM_VIRTQ_STATE_RDY) {
			q.ready = false;
			return nullptr;
		}
		q.hw_avail = dvshare_prm_get16(q.obj->ctx, DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX - kCtx);
		q.hw_used = dvshare_prm_get16(q.obj->ctx, DVSHARE_PRM_VIRTQ_HW_USED_IDX - kCtx);
		return &q;
	}

	/* Publish what the device did: used entries before the index
	 * (release), then the indexes QUERY reports. */
	void publish(Queue &q)
	{
		store(q.used->idx, htole16(q.hw_used), std::memory_order_release);
		dvshare_prm_put16(q.obj->ctx, DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX - kCtx, q.hw_avail);
		dvshare_prm_put16(q.obj->ctx, DVSHARE_PRM_VIRTQ_HW_USED_IDX - kCtx, q.hw_used);
	}

	/* The avail index: entries posted since hw_avail, or -1 (and ERR)
	 * when the driver claims more than the ring holds. Only at a turn's
	 * start, before anything of @q is written. */
	int pending(Queue &q)
	{
		uint16_t idx = le16toh(load(q.avail->idx, std::memory_order_acquire));
		uint16_t n = static_cast<uint16_t>(idx - q.hw_avail);

		if (n > q.size) {
			set_err(q, DVS_SIM_VQ_ERR_BAD_DESC, &QCounters::bad_desc_errors);
			return -1;
		}
		return n;
	}

	/* Walk the chain at @head (read once each), translating its buffers
	 * into @out: device-readable for TX, device-writable for RX. TX
	 * (@write false): kOversize as soon as the chain holds more than
	 * @limit bytes, before that buffer is translated. RX: the walk ends
	 * once the buffers hold @limit bytes (the rest is not needed). 0
	 * with the descriptors walked and their bytes, or the error type. */
	uint8_t walk(Queue &q, uint16_t head, bool write, uint64_t limit, std::vector<Frag> &out,
		     uint32_t *ndesc, uint64_t *bytes)
	{
		uint32_t idx = head, n = 0;
		uint64_t total = 0;

		out.clear();
		*ndesc = 0;
		for (;;) {
			if (idx >= q.size)
				return DVS_SIM_VQ_ERR_BAD_DESC;
			if (n == q.size) /* more links than descriptors: a loop */
				return DVS_SIM_VQ_ERR_EXCEED_MAX_CHAIN;
			const VringDesc &d = q.desc[idx];
			uint64_t addr = le64toh(load(d.addr));
			uint32_t len = le32toh(load(d.len));
			uint16_t flags = le16toh(load(d.flags));
			uint16_t next = le16toh(load(d.next));
			n++;
			*ndesc = n;
			if ((flags & kDescIndirect) != 0 ||
			    ((flags & kDescWrite) != 0) != write)
				return DVS_SIM_VQ_ERR_BAD_DESC;
			if (!write && total + len > limit)
				return kOversize;
			if (!xlate(q, addr, len, write, out))
				return DVS_SIM_VQ_ERR_INVALID_BUFFER;
			total += len;
			if ((flags & kDescNext) == 0 || (write && total >= limit))
				break;
			idx = next;
		}
		*bytes = total;
		return 0;
	}

	void fail(Queue &q, uint8_t type)
	{
		switch (type) {
		case DVS_SIM_VQ_ERR_EXCEED_MAX_CHAIN:
			set_err(q, type, &QCounters::exceed_max_chain);
			break;
		case DVS_SIM_VQ_ERR_INVALID_BUFFER:
			set_err(q, type, &QCounters::invalid_buffer);
			break;
		default:
			set_err(q, type, &QCounters::bad_desc_errors);
			break;
		}
	}

	static void put_used(Queue &q, uint16_t head, uint32_t len)
	{
		VringUsedElem &e = q.used->ring[q.hw_used & q.mask];
		store(e.id, htole32(head));
		store(e.len, htole32(len));
		q.hw_used++;
		q.hw_avail++;
	}

	/* What a turn did, counted once at its end. */
	struct Tally {
		uint64_t tx_desc = 0, rx_desc = 0, packets = 0, dropped = 0, oversize = 0;
		uint64_t octets = 0;    /* of every packet sent */
		uint64_t delivered = 0; /* of the packets delivered */
	};

	/* The RX side of one TX turn: the queue packets go to, what is left
	 * of its posted buffers, and the error that ends it (applied when
	 * the turn ends). */
	struct Rx {
		Queue *q = nullptr;
		int left = 0;
		uint8_t err = 0;
	};

	/* Put one packet (@pkt bytes after the header in tx) in the next RX
	 * buffer, adding the descriptors walked to @ndesc; false when
	 * dropped. */
	bool deliver(Rx &r, uint32_t pkt, uint32_t *ndesc)
	{
		if (r.q == nullptr || r.left <= 0)
			return false;
		Queue &q = *r.q;
		uint16_t head = le16toh(load(q.avail->ring[q.hw_avail & q.mask]));
		uint32_t n;
		uint64_t room = 0;
		const uint64_t need = kNetHdr + static_cast<uint64_t>(pkt);
		uint8_t err = walk(q, head, true, need, rx, &n, &room);
		*ndesc += n;
		if (err != 0) {
			r.err = err;
			r.left = 0;
			return false;
		}
		if (room < need)
			return false; /* no MRG_RXBUF: the buffer must hold it all */
		copy_packet(tx, rx, pkt);
		put_used(q, head, static_cast<uint32_t>(need));
		r.left--;
		return true;
	}

	/* A hint only (the real reads come later, once each): the
	 * descriptors of the avail entry @ahead places after hw_avail, which
	 * the driver's core wrote. Hiding their cache misses is most of what
	 * a burst costs. */
	static void prefetch_desc(const Queue &q, uint32_t ahead)
	{
		uint16_t head = le16toh(load(q.avail->ring[(q.hw_avail + ahead) & q.mask]));

		if (head < q.size)
			__builtin_prefetch(&q.desc[head]);
	}

	/* The RX queue TX queue @t delivers to, with its posted buffers. An
	 * RX ring claiming more than it holds is in ERR before anything of
	 * it is written, and takes no packet. */
	Rx rx_of(const Queue &t, uint16_t ti)
	{
		Rx r;
		r.q = t.route < kMaxVirtq && t.route != ti ? view(t.route) : nullptr;
		if (r.q != nullptr) {
			r.left = pending(*r.q);
			if (r.left < 0) {
				r.q = nullptr;
				r.left = 0;
			}
		}
		return r;
	}

	/* Serve TX queue @t: move its posted packets to its RX queue, within
	 * the turn's budget and deficit. */
	void serve_tx(Queue &t, uint16_t ti)
	{
		int n = pending(t);
		if (n <= 0) {
			if (n == 0)
				idle(t, ti);
			return;
		}
		t.idle = 0;
		if (!t.quiet) {
			store(t.used->flags, htole16(kUsedNoNotify));
			t.quiet = true;
		}
		t.credit = std::min(t.credit + kQuantum, kQuantum);
		if (t.credit <= 0)
			return; /* paying for an earlier turn */
		Rx r = rx_of(t, ti);
		const uint64_t limit = kNetHdr + static_cast<uint64_t>(max_frame());
		const uint32_t burst = std::min<uint32_t>(static_cast<uint32_t>(n), kBudget);
		constexpr uint32_t kAhead = 8;
		uint8_t t_err = 0;
		Tally tl;
		for (uint32_t k = 0; k < kAhead && k < burst; k++) {
			prefetch_desc(t, k);
			if (k < static_cast<uint32_t>(r.left))
				prefetch_desc(*r.q, k);
		}
		for (uint32_t k = 0; k < burst && t.credit > 0; k++) {
			if (k + kAhead < burst) {
				prefetch_desc(t, kAhead);
				if (kAhead < static_cast<uint32_t>(r.left))
					prefetch_desc(*r.q, kAhead);
			}
			uint16_t head = le16toh(load(t.avail->ring[t.hw_avail & t.mask]));
			uint32_t ndesc, rdesc = 0;
			uint64_t bytes = 0;
			uint8_t err = walk(t, head, false, limit, tx, &ndesc, &bytes);
			if (err == 0 && bytes < kNetHdr)
				err = DVS_SIM_VQ_ERR_BAD_DESC; /* no room for its header */
			if (err != 0 && err != kOversize) {
				t_err = err;
				break;
			}
			int64_t cost = kPacketCost;
			if (err == kOversize) {
				tl.oversize++;
			} else {
				uint32_t pkt = static_cast<uint32_t>(bytes - kNetHdr);
				tl.octets += pkt;
				if (deliver(r, pkt, &rdesc)) {
					tl.packets++;
					tl.delivered += pkt;
					cost += kNetHdr + pkt;
				} else {
					tl.dropped++;
				}
			}
			tl.tx_desc += ndesc;
			tl.rx_desc += rdesc;
			cost += kDescCost * (ndesc + rdesc);
			t.credit -= cost;
			put_used(t, head, 0);
		}
		publish(t);
		if (r.q != nullptr)
			publish(*r.q);
		account(t, ti, r.q, tl);
		/* Last: nothing of a queue is touched once it is in ERR. */
		if (r.err != 0)
			fail(*r.q, r.err);
		if (t_err != 0)
			fail(t, t_err);
	}

	/* What a turn did, into the counters QUERY reads. */
	void account(Queue &t, uint16_t ti, Queue *r, const Tally &tl)
	{
		const uint64_t sent = tl.packets + tl.dropped;
		if (t.ctr != nullptr) {
			bump(t.ctr->received_desc, tl.tx_desc);
			bump(t.ctr->completed_desc, tl.tx_desc);
		}
		if (r != nullptr && r->ctr != nullptr) {
			/* Only the buffers filled: a walk that found one too
			 * small, or an error, completed nothing. */
			bump(r->ctr->received_desc, tl.rx_desc);
			bump(r->ctr->completed_desc, tl.rx_desc);
		}
		if (t.flow != nullptr) {
			bump(t.flow->packets, sent);
			bump(t.flow->octets, tl.octets);
		}
		if (tl.dropped != 0)
			add<uint64_t>(dp().vq[t.route].rx_dropped, tl.dropped);
		if (tl.oversize != 0)
			add<uint64_t>(dp().vq[ti].tx_oversize, tl.oversize);
		counts->packets += tl.packets;
		counts->dropped += tl.dropped + tl.oversize;
		counts->oversize += tl.oversize;
		counts->octets += tl.delivered;
	}

	/* No work on @q: after kIdlePasses, ask for kicks again, then look
	 * once more (the driver posts, fences, reads the flag; the device
	 * clears the flag, fences, reads the index: one of them sees the
	 * other) and disarm. */
	void idle(Queue &q, uint16_t i)
	{
		q.credit = std::min<int64_t>(q.credit, 0); /* an empty queue keeps no deficit (DRR), only its debt */
		if (++q.idle < kIdlePasses)
			return;
		q.idle = 0;
		store(q.used->flags, static_cast<uint16_t>(0));
		q.quiet = false;
		std::atomic_thread_fence(std::memory_order_seq_cst);
		if (le16toh(load(q.avail->idx)) != q.hw_avail)
			return;
		disarm(i);
	}

	void serve(uint16_t i)
	{
		Queue *q = view(i);

		if (q == nullptr) {
			disarm(i);
			return;
		}
		if (i % 2 == 1)
			serve_tx(*q, i);
		else
			disarm(i); /* an RX kick: its buffers are read when packets come */
	}

	/* A turn refused: a control call holds the ufile. If one has held it
	 * for long, its holder may have died with it. */
	void fenced()
	{
		counts->fenced++;
		if (++fenced_turns % 1024 != 1)
			return;
		uint64_t now = now_ns();
		if (fenced_since == 0)
			fenced_since = now;
		else if (now - fenced_since > kFenceCheckNs && EngineTurn::lift_dead_fence(u.hdr()))
			fenced_since = 0;
	}
};

DataPath::DataPath(const Ufile &u) : impl_(std::make_unique<Impl>(u, &counts_)) {}

DataPath::~DataPath() = default;

bool DataPath::active() const
{
	return impl_->any_armed();
}

unsigned int DataPath::pass()
{
	Impl &m = *impl_;
	bool rung = m.doorbell_pending();

	if (!rung && !m.any_armed())
		return 0;
	unsigned int kicks = 0;
	if (rung) {
		EngineTurn turn(m.u.hdr());
		if (!turn.ok()) {
			m.fenced();
			return 0;
		}
		kicks = m.take_doorbells();
		counts_.kicks += kicks;
	}
	for (uint32_t w = 0; w < kMaxVirtq / 64; w++)
		for (uint64_t b = load(m.dp().armed[w]); b != 0; b &= b - 1) {
			EngineTurn turn(m.u.hdr());
			if (!turn.ok()) {
				m.fenced();
				return kicks;
			}
			m.gen = load(m.dp().gen);
			m.serve(static_cast<uint16_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(b))));
		}
	m.fenced_turns = 0;
	m.fenced_since = 0;
	return kicks;
}

} // namespace dvs::sim
