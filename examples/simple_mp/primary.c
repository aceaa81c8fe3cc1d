/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare example, primary side: share an mlx5 device (the software device
 * "sim0" by default) with this process's DPDK secondaries, publish a VAR
 * doorbell page, a VIRTIO_NET_Q and a flow counter, wait, and close: the
 * close destroys everything, each secondary letting go first.
 *
 *   simple_mp_primary [EAL options] -- [ibdev]
 *
 * Run simple_mp_secondary next to it (same --file-prefix, and
 * --proc-type=secondary); press Enter (or close stdin) here to finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h> /* IBV_ACCESS_LOCAL_WRITE */
#include <rte_eal.h>
#include <rte_errno.h>

#include <dvshare.h>
#include <dvshare_prm.h>

static int die(const char *what)
{
	fprintf(stderr, "primary: %s: %s\n", what, rte_strerror(rte_errno));
	return 1;
}

/* Create a DEVX object from PRM command @in and publish it as @name: 0
 * with its id in *@id (a firmware id may be 0), or -1. */
static int create(struct dvshare_dev *dev, const char *name, const void *in, size_t len,
		  uint32_t *id)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	struct dvshare_obj *o = dvshare_obj_create(dev, name, in, len, out, sizeof(out));

	if (o == NULL)
		return -1;
	if (id != NULL)
		*id = dvshare_obj_id(o);
	dvshare_obj_release(o); /* the object stays published; we keep no handle */
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t caps[DVSHARE_PRM_HCA_CAP_OUT_SIZE];
	void *mem[3] = { NULL, NULL, NULL }; /* the UMEMs' memory */
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtio_caps vio;
	struct dvshare_prm_virtq q;
	struct dvshare_dev *dev;
	int n = rte_eal_init(argc, argv);

	if (n < 0) { /* one line: the cause and what to do */
		char why[256];
		dvshare_eal_init_explain(0, NULL, rte_errno, why, sizeof(why));
		fprintf(stderr, "%s: EAL init: %s\n", argv[0], why);
		return 1;
	}
	dev = dvshare_dev_open(argc - n > 1 ? argv[n + 1] : "sim0", NULL);
	if (dev == NULL)
		return die("open");

	/* 1. A VAR doorbell page: secondaries kick queues through it. */
	struct dvshare_var *var = dvshare_var_alloc(dev, "db", 0);
	if (var == NULL)
		return die("VAR");
	dvshare_var_release(var);

	/* 2. A VIRTIO_NET_Q, built as DPDK's vdpa driver prepares one
	 * (drivers/vdpa/mlx5): the device's virtio caps say which event
	 * mode it offers and how big each of its three UMEMs must be; the
	 * queue sits on a protection domain and sends through a TIS on a
	 * transport domain; it gets its own counters when the device has
	 * them. */
	struct dvshare_prm_hca_caps gen;
	dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_GENERAL);
	if (dvshare_dev_general_cmd(dev, in, DVSHARE_PRM_HDR_SIZE, caps, sizeof(caps)) != 0)
		return die("QUERY_HCA_CAP");
	dvshare_prm_hca_caps_parse(caps, &gen);
	dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_VIRTIO_EMULATION);
	if (dvshare_dev_general_cmd(dev, in, DVSHARE_PRM_HDR_SIZE, caps, sizeof(caps)) != 0)
		return die("QUERY_HCA_CAP");
	dvshare_prm_virtio_caps_parse(caps, &vio);
	if (!(vio.event_modes & (1u << DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX))) {
		/* QP mode needs an event QP and CQ, beyond this example. */
		fprintf(stderr, "primary: the device offers no polled (NO_MSIX) queues\n");
		return 1;
	}
	memset(&q, 0, sizeof(q));
	q.queue_index = 0;
	q.queue_size = 256;
	q.event_mode = DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX;
	q.virtio_version_1_0 = vio.virtio_version_1_0;
	uint32_t td;
	if (create(dev, "pd", in, dvshare_prm_alloc_pd(in), &q.pd) != 0)
		return die("PD");
	if (create(dev, "td", in, dvshare_prm_alloc_td(in), &td) != 0)
		return die("transport domain");
	if (create(dev, "tis", in, dvshare_prm_create_tis(in, td, 1), &q.tisn_or_qpn) != 0)
		return die("TIS");
	const int counters = dvshare_prm_hca_has_obj(&gen, DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
	if (counters &&
	    create(dev, "rxq0.counters", in, dvshare_prm_virtq_counters_create(in),
		   &q.counter_set_id) != 0)
		return die("queue counters");
	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "rxq0.umem1", "rxq0.umem2", "rxq0.umem3" };
		uint32_t size = (uint32_t)dvshare_prm_virtq_umem_size(&vio, i, q.queue_size);
		struct dvshare_umem *u = NULL;

		mem[i] = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
		if (mem[i] != NULL)
			u = dvshare_umem_reg(dev, names[i], mem[i], size, IBV_ACCESS_LOCAL_WRITE);
		if (u == NULL)
			return die("UMEM");
		q.umem[i].id = dvshare_umem_id(u);
		q.umem[i].size = size;
		dvshare_umem_release(u); /* mem[i] must outlive the UMEM */
	}
	if (create(dev, "rxq0", in, dvshare_prm_virtq_create(in, &q), NULL) != 0)
		return die("VIRTIO_NET_Q");

	/* 3. A flow counter, read by the secondaries through their own context. */
	if (create(dev, "hits", in, dvshare_prm_alloc_flow_counter(in, 0), NULL) != 0)
		return die("flow counter");

	printf("primary: ready: db, pd, td, tis, rxq0 (+3 UMEMs%s), hits published\n",
	       counters ? ", counters" : "");
	fflush(stdout);
	getchar();

	/* Coordinated destroy of everything: every secondary lets go first. */
	if (dvshare_dev_close(dev) != 0)
		return die("close");
	for (int i = 0; i < 3; i++)
		free(mem[i]); /* no process can reach the UMEMs any more */
	printf("primary: closed\n");
	rte_eal_cleanup();
	return 0;
}
