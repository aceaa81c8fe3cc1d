/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare example: a virtio-net queue pair on the software device, in
 * one process, end to end. The device's engine runs as a DPDK service
 * (this program runs its iterations). Queue 1 (TX) delivers to queue 0
 * (RX), the software device's default: what the engine does with a
 * frame is what a NIC's steering would.
 *
 *   virtq_loopback [EAL options] -- [frames]
 *
 * Steps, each a few lines below: the device's PD, transport domain and
 * TIS; memory for the rings and buffers (DPDK's) and its UMEM in one call;
 * a direct key over it whose addresses are the virtual ones (IOVA = VA);
 * two VIRTIO_NET_Qs given their rings at create, then RDY; a VAR to kick;
 * then RX buffers posted, frames posted on TX, one kick, and the frames
 * taken from RX and checked. The rings follow virtio 1.1 section 2.6
 * (<linux/virtio_ring.h>); each frame is preceded by the 12-byte
 * virtio_net_hdr_v1 the device reads and writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h> /* IBV_ACCESS_LOCAL_WRITE */
#include <linux/virtio_ring.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_io.h>
#include <rte_service.h>

#include <dvshare.h>
#include <dvshare_prm.h>

#define QSIZE 64u   /* entries per ring */
#define BUF 2048u   /* bytes per buffer */
#define HDR 12u     /* virtio_net_hdr_v1 */
#define LEN 60u     /* frame bytes */

/* One split ring laid out in memory: descriptors, avail, used. */
struct ring {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t next;  /* next avail slot (= the descriptor used: in order) */
	uint16_t taken; /* used entries taken */
};

static int die(const char *what, int err)
{
	fprintf(stderr, "loopback: %s: %s\n", what, rte_strerror(err < 0 ? -err : err));
	return 1;
}

static uint32_t create(struct dvshare_dev *dev, const char *name, const void *in, size_t len,
		       int *ok)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	struct dvshare_obj *o = dvshare_obj_create(dev, name, in, len, out, sizeof(out));
	uint32_t id;

	if (o == NULL) {
		*ok = 0;
		return 0;
	}
	id = dvshare_obj_id(o);
	dvshare_obj_release(o);
	return id;
}

static void ring_at(struct ring *r, uint8_t *m)
{
	r->desc = (struct vring_desc *)m;
	r->avail = (struct vring_avail *)(m + 16 * QSIZE);
	r->used = (struct vring_used *)(m + 16 * QSIZE + 512); /* 6 + 2 * QSIZE fit in 512 */
	r->next = r->taken = 0;
}

/* Post one buffer; visible to the device at publish(). */
static void post(struct ring *r, void *buf, uint32_t len, int device_writes)
{
	uint16_t d = r->next % QSIZE;

	r->desc[d].addr = (uintptr_t)buf; /* the key's addresses are the virtual ones */
	r->desc[d].len = len;
	r->desc[d].flags = device_writes ? VRING_DESC_F_WRITE : 0;
	r->avail->ring[d] = d;
	r->next++;
}

static void publish(struct ring *r)
{
	rte_io_wmb(); /* the entries before the index */
	r->avail->idx = r->next;
}

int main(int argc, char **argv)
{
	int ok = 1, ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		char why[256];
		dvshare_eal_init_explain(0, NULL, rte_errno, why, sizeof(why));
		fprintf(stderr, "loopback: EAL init: %s\n", why);
		return 1;
	}
	argc -= ret;
	argv += ret;
	uint32_t frames = argc > 1 ? (uint32_t)atoi(argv[1]) : 32;
	if (frames == 0 || frames > QSIZE)
		frames = QSIZE;

	struct dvshare_dev *dev = dvshare_dev_open("sim0", NULL);
	uint32_t svc;
	if (dev == NULL)
		return die("open sim0", rte_errno);
	if ((ret = dvshare_engine_start(dev, &svc)) != 0)
		return die("engine", ret);

	/* The PD, transport domain and TIS every queue sends through. */
	uint8_t in[DVSHARE_PRM_MKEY_SIZE];
	uint32_t pd = create(dev, "pd", in, dvshare_prm_alloc_pd(in), &ok);
	uint32_t td = create(dev, "td", in, dvshare_prm_alloc_td(in), &ok);
	uint32_t tis = create(dev, "tis", in, dvshare_prm_create_tis(in, td, 1), &ok);

	/* Rings (4 KiB each) then buffers, in DPDK memory that lives and
	 * dies with its UMEM; a key over it. */
	const size_t len = 2 * 4096 + 2 * QSIZE * BUF;
	struct dvshare_umem *um = dvshare_umem_alloc(dev, "mem", len, 4096, IBV_ACCESS_LOCAL_WRITE);
	uint8_t *mem = dvshare_umem_addr(um);
	if (!ok || um == NULL)
		return die("PD, TIS or memory", rte_errno);
	struct dvshare_prm_mkey k = { .lr = 1, .lw = 1, .qpn = DVSHARE_PRM_MKEY_NO_QPN, .pd = pd,
				      .start_addr = (uintptr_t)mem, .len = len,
				      .umem_id = dvshare_umem_id(um) };
	uint32_t mkey = create(dev, "key", in, dvshare_prm_mkey_create_direct(in, &k), &ok);

	/* The device's caps size the queues' own UMEMs (device work areas). */
	uint8_t caps[DVSHARE_PRM_HCA_CAP_OUT_SIZE], q[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtio_caps vio;
	dvshare_dev_general_cmd(dev, in, dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_VIRTIO_EMULATION),
				caps, sizeof(caps));
	dvshare_prm_virtio_caps_parse(caps, &vio);

	struct ring rx, tx;
	struct dvshare_obj *qobj[2];
	ring_at(&rx, mem);
	ring_at(&tx, mem + 4096);
	for (int i = 0; i < 2 && ok; i++) {
		struct ring *r = i == 0 ? &rx : &tx;
		struct dvshare_prm_virtq v = {
			.queue_index = (uint16_t)i, .queue_size = QSIZE, .pd = pd, .tisn_or_qpn = tis,
			.virtio_version_1_0 = 1, .mkey = mkey, .desc_addr = (uintptr_t)r->desc,
			.available_addr = (uintptr_t)r->avail, .used_addr = (uintptr_t)r->used,
		};
		char name[32];
		for (unsigned int u = 0; u < 3; u++) {
			size_t sz = dvshare_prm_virtq_umem_size(&vio, u, QSIZE);
			snprintf(name, sizeof(name), "q%d.umem%u", i, u + 1);
			struct dvshare_umem *w = dvshare_umem_alloc(dev, name, sz, 4096,
								    IBV_ACCESS_LOCAL_WRITE);
			ok &= w != NULL;
			v.umem[u].id = w != NULL ? dvshare_umem_id(w) : 0;
			v.umem[u].size = (uint32_t)sz;
			dvshare_umem_release(w);
		}
		snprintf(name, sizeof(name), "q%d", i);
		create(dev, name, q, dvshare_prm_virtq_create(q, &v), &ok);
		qobj[i] = ok ? dvshare_obj_lookup(dev, name) : NULL;
		uint8_t out[DVSHARE_PRM_HDR_SIZE];
		ok &= qobj[i] != NULL &&
		      dvshare_obj_modify(qobj[i], q, dvshare_prm_virtq_modify_state(
							  q, dvshare_obj_id(qobj[i]),
							  DVSHARE_PRM_VIRTQ_STATE_RDY),
					 out, sizeof(out)) == 0;
	}
	struct dvshare_var *var = ok ? dvshare_var_alloc(dev, "db", 0) : NULL;
	if (var == NULL)
		return die("key, queues or VAR", rte_errno);
	void *db = dvshare_var_doorbell(var);
	printf("loopback: queues 0 (RX) and 1 (TX) ready, key 0x%x over %zu bytes\n", mkey, len);

	/* RX buffers, then the frames on TX, then one kick. */
	uint8_t *bufs = mem + 2 * 4096;
	for (uint32_t i = 0; i < QSIZE; i++)
		post(&rx, bufs + i * BUF, BUF, 1);
	publish(&rx);
	for (uint32_t i = 0; i < frames; i++) {
		uint8_t *b = bufs + (QSIZE + i) * BUF;
		memset(b, 0, HDR);
		for (uint32_t j = 0; j < LEN; j++)
			b[HDR + j] = (uint8_t)(i + j);
		post(&tx, b, HDR + LEN, 0);
	}
	publish(&tx);
	rte_mb(); /* the index before the flag, against the device's order */
	if (!(tx.used->flags & VRING_USED_F_NO_NOTIFY))
		dvshare_doorbell32(db, 0, 1); /* the value is the queue index */

	/* The device moves them; take them back and check each byte. */
	for (int i = 0; i < 10000 && rx.used->idx != (uint16_t)frames; i++)
		rte_service_run_iter_on_app_lcore(svc, 1);
	rte_io_rmb();
	uint32_t got = 0, bad = 0;
	for (; rx.taken != rx.used->idx; rx.taken++, got++) {
		const struct vring_used_elem *e = &rx.used->ring[rx.taken % QSIZE];
		const uint8_t *b = bufs + e->id * BUF;
		int same = e->len == HDR + LEN;
		for (uint32_t j = 0; j < LEN && same; j++)
			same = b[HDR + j] == (uint8_t)(got + j);
		bad += !same;
	}
	printf("loopback: %u frames sent, %u received, %u bad; TX used %u\n", frames, got, bad,
	       tx.used->idx);
	dvshare_var_release(var);
	dvshare_obj_release(qobj[0]);
	dvshare_obj_release(qobj[1]);
	ret = dvshare_dev_close(dev); /* destroys every object, queues first */
	rte_eal_cleanup();
	return ret != 0 || got != frames || bad != 0;
}
