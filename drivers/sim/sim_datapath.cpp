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
 * by the queue size, as DPDK's lib/vhost bounds them.
 *
 * A queue is served under the ufile lock: a control call (SUSPEND, a
 * destroy) waits for the pass to end, so when it returns the engine has
 * stopped using the queue and its memory.
 */
#include "sim_datapath.h"

#include <algorithm>
#include <atomic>
#include <cstring>
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
constexpr uint32_t kBudget = 256;      /* packets per queue per pass: others get their turn */
constexpr uint32_t kIdlePasses = 1024; /* passes polled without work before kicks are asked for */
constexpr size_t kCtx = DVSHARE_PRM_HDR_SIZE; /* virtio_net_q's offset in a command */

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
};

uint8_t *ctx_field(Kobj &k, size_t off)
{
	return k.ctx + (off - kCtx);
}

uint8_t state_of(Kobj &k)
{
	return *ctx_field(k, DVSHARE_PRM_VIRTQ_STATE) & 0xf;
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
 * of a device without MRG_RXBUF). */
void copy_packet(const std::vector<Frag> &tx, const std::vector<Frag> &rx, uint32_t pkt)
{
	uint8_t hdr[kNetHdr] = {};
	uint16_t one = htole16(1);
	memcpy(hdr + 10, &one, sizeof(one));
	if (tx.size() == 1 && rx.size() == 1) { /* the common case: one buffer each */
		memcpy(rx[0].p, hdr, kNetHdr);
		memcpy(rx[0].p + kNetHdr, tx[0].p + kNetHdr, pkt);
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
			memcpy(rx[ri].p + roff, src, c);
			roff += c;
			src += c;
			n -= c;
		}
	};
	put(hdr, kNetHdr);
	uint32_t skip = kNetHdr;
	for (const Frag &f : tx) {
		uint32_t s = std::min(skip, f.len);
		skip -= s;
		put(f.p + s, f.len - s);
	}
}

} // namespace

/* ------------------------------------------------ shared state changes */

void dp_changed(const Ufile &u)
{
	add<uint64_t>(u.dp().gen, 1);
}

bool dp_can_bind(const Ufile &u, uint16_t index, uint32_t handle)
{
	uint32_t h = u.dp().vq[index].handle;

	return h == HandleTable::kNone || h == handle;
}

void dp_bind(const Ufile &u, uint16_t index, uint32_t handle)
{
	u.dp().vq[index].handle = handle;
	dp_changed(u);
}

void dp_unbind(const Ufile &u, uint16_t index, uint32_t handle)
{
	if (index < kMaxVirtq && u.dp().vq[index].handle == handle)
		u.dp().vq[index].handle = HandleTable::kNone;
	dp_changed(u);
}

void dp_forget_counter(const Ufile &u, uint32_t id)
{
	for (VqSlot &s : u.dp().vq)
		if (s.flow_counter == id)
			s.flow_counter = 0;
	dp_changed(u);
}

void dp_poll_page(const Ufile &u, uint32_t page_id, bool on)
{
	std::atomic_ref<uint64_t> w(u.dp().var_pages[page_id / 64]);
	const uint64_t bit = 1ull << (page_id % 64);

	if (on)
		w.fetch_or(bit, std::memory_order_release);
	else
		w.fetch_and(~bit, std::memory_order_release);
}

/* ------------------------------------------------------------ engine */

struct DataPath::Impl {
	const Ufile &u;
	const uint64_t token;   /* this process (process_token()) */
	uint64_t gen = 0;       /* DpState::gen of this pass */
	DpCounts *counts;
	Queue q[kMaxVirtq];
	std::vector<Frag> tx, rx;

	Impl(const Ufile &uf, DpCounts *c) : u(uf), token(process_token()), counts(c)
	{
		tx.reserve(64);
		rx.reserve(64);
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
	 * never touches the lock other processes' control calls need. */
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

	/* Under the lock, so no page is freed and handed to a new VAR
	 * halfway: each kick counts on the page it was written to. */
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

	/* ------------------------------------------------ the queue's view */

	void set_err(Queue &q, uint8_t type, uint32_t QCounters::*counter)
	{
		uint8_t *st = ctx_field(*q.obj, DVSHARE_PRM_VIRTQ_STATE);
		*st = static_cast<uint8_t>((*st & 0xf0) | DVSHARE_PRM_VIRTQ_STATE_ERR);
		*ctx_field(*q.obj, DVSHARE_PRM_VIRTQ_ERROR_TYPE) = type;
		if (q.ctr != nullptr)
			add(q.ctr->*counter, 1u);
		q.ready = false;
		counts->errors++;
	}

	/* Build the view of index @i from the shared state. */
	void rebuild(Queue &q, uint16_t i)
	{
		q = Queue{};
		q.gen = gen;
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
	 * when the driver claims more than the ring holds. */
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
	 * into @out: device-readable for TX, device-writable for RX. 0 with
	 * the descriptor count and bytes, or the error type. */
	uint8_t walk(Queue &q, uint16_t head, bool write, std::vector<Frag> &out, uint32_t *ndesc,
		     uint64_t *bytes)
	{
		uint32_t idx = head, n = 0;
		uint64_t total = 0;

		out.clear();
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
			if ((flags & kDescIndirect) != 0 ||
			    ((flags & kDescWrite) != 0) != write)
				return DVS_SIM_VQ_ERR_BAD_DESC;
			if (!xlate(q, addr, len, write, out))
				return DVS_SIM_VQ_ERR_INVALID_BUFFER;
			total += len;
			n++;
			if ((flags & kDescNext) == 0)
				break;
			idx = next;
		}
		*ndesc = n;
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

	/* Descriptors a burst took from each ring, counted once at its end:
	 * under the lock, plain adds (no locked instruction per packet). */
	struct Tally {
		uint64_t tx_desc = 0, rx_desc = 0, packets = 0, dropped = 0;
		uint64_t octets = 0;    /* of every packet sent */
		uint64_t delivered = 0; /* of the packets delivered */
	};

	/* Put one packet (@pkt bytes after the header in tx) in @r's next
	 * buffer; false when dropped. */
	bool deliver(Queue *r, int *r_left, uint32_t pkt, Tally &tl)
	{
		if (r == nullptr || *r_left <= 0)
			return false;
		uint16_t head = le16toh(load(r->avail->ring[r->hw_avail & r->mask]));
		uint32_t ndesc;
		uint64_t room;
		uint8_t err = walk(*r, head, true, rx, &ndesc, &room);
		if (err != 0) {
			fail(*r, err);
			*r_left = 0;
			return false;
		}
		if (room < kNetHdr + static_cast<uint64_t>(pkt))
			return false; /* no MRG_RXBUF: the buffer must hold it all */
		copy_packet(tx, rx, pkt);
		tl.rx_desc += ndesc;
		put_used(*r, head, kNetHdr + pkt);
		(*r_left)--;
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

	/* Serve TX queue @t: move its posted packets to its RX queue. */
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
		Queue *r = t.route < kMaxVirtq && t.route != ti ? view(t.route) : nullptr;
		int r_left = r != nullptr ? pending(*r) : 0;
		if (r_left < 0)
			r = nullptr;
		uint32_t burst = std::min<uint32_t>(static_cast<uint32_t>(n), kBudget);
		constexpr uint32_t kAhead = 8;
		Tally tl;
		for (uint32_t k = 0; k < kAhead && k < burst; k++) {
			prefetch_desc(t, k);
			if (k < static_cast<uint32_t>(r_left))
				prefetch_desc(*r, k);
		}
		for (uint32_t k = 0; k < burst; k++) {
			if (k + kAhead < burst) {
				prefetch_desc(t, kAhead);
				if (kAhead < static_cast<uint32_t>(r_left))
					prefetch_desc(*r, kAhead);
			}
			uint16_t head = le16toh(load(t.avail->ring[t.hw_avail & t.mask]));
			uint32_t ndesc;
			uint64_t bytes;
			uint8_t err = walk(t, head, false, tx, &ndesc, &bytes);
			if (err == 0 && (bytes < kNetHdr || bytes - kNetHdr > UINT32_MAX))
				err = DVS_SIM_VQ_ERR_BAD_DESC; /* no room for its header */
			if (err != 0) {
				fail(t, err);
				break;
			}
			uint32_t pkt = static_cast<uint32_t>(bytes - kNetHdr);
			tl.octets += pkt;
			if (deliver(r, &r_left, pkt, tl)) {
				tl.packets++;
				tl.delivered += pkt;
			} else {
				tl.dropped++;
			}
			tl.tx_desc += ndesc;
			put_used(t, head, 0);
		}
		publish(t);
		if (r != nullptr)
			publish(*r);
		account(t, r, tl);
	}

	/* What a burst did, into the counters QUERY reads (under the lock). */
	void account(Queue &t, Queue *r, const Tally &tl)
	{
		const uint64_t sent = tl.packets + tl.dropped;
		if (t.ctr != nullptr) {
			t.ctr->received_desc += tl.tx_desc;
			t.ctr->completed_desc += tl.tx_desc;
		}
		if (r != nullptr && r->ctr != nullptr) {
			r->ctr->received_desc += tl.rx_desc;
			r->ctr->completed_desc += tl.rx_desc;
		}
		if (t.flow != nullptr) {
			t.flow->packets += sent;
			t.flow->octets += tl.octets;
		}
		if (tl.dropped != 0)
			add<uint64_t>(dp().vq[t.route].rx_dropped, tl.dropped);
		counts->packets += tl.packets;
		counts->dropped += tl.dropped;
		counts->octets += tl.delivered;
	}

	/* No work on @q: after kIdlePasses, ask for kicks again, then look
	 * once more (the driver posts, fences, reads the flag; the device
	 * clears the flag, fences, reads the index: one of them sees the
	 * other) and disarm. */
	void idle(Queue &q, uint16_t i)
	{
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
	UfileLock lock(m.u.hdr());
	unsigned int kicks = rung ? m.take_doorbells() : 0;
	counts_.kicks += kicks;
	m.gen = load(m.dp().gen);
	for (uint32_t w = 0; w < kMaxVirtq / 64; w++)
		for (uint64_t b = load(m.dp().armed[w]); b != 0; b &= b - 1)
			m.serve(static_cast<uint16_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(b))));
	return kicks;
}

} // namespace dvs::sim

int dvs_sim_steer(struct ibv_context *ctx, uint16_t tx_index, uint16_t rx_index,
		  uint32_t flow_counter_id)
{
	using namespace dvs::sim;
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || tx_index >= kMaxVirtq || tx_index % 2 != 1 ||
	    (rx_index != UINT16_MAX && (rx_index >= kMaxVirtq || rx_index % 2 != 0)))
		return -EINVAL;
	UfileLock lock(sc->ufile.hdr());
	if (flow_counter_id != 0 &&
	    find_devx(sc->ufile, flow_counter_id, DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, 0) == nullptr)
		return -ENOENT;
	VqSlot &s = sc->ufile.dp().vq[tx_index];
	s.route = rx_index == UINT16_MAX ? kNoRoute : rx_index;
	s.flow_counter = flow_counter_id;
	dp_changed(sc->ufile);
	return 0;
}

int dvs_sim_vq_stats(struct ibv_context *ctx, uint16_t index, uint64_t *kicks,
		     uint64_t *rx_dropped)
{
	using namespace dvs::sim;
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || index >= kMaxVirtq)
		return -EINVAL;
	const VqSlot &s = sc->ufile.dp().vq[index];
	if (kicks != nullptr)
		*kicks = load(s.kicks);
	if (rx_dropped != nullptr)
		*rx_dropped = load(s.rx_dropped);
	return 0;
}
