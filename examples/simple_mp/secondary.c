/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare example, secondary side: by the time rte_eal_init() returns,
 * everything the primary published is imported into this process's own
 * device context. Kick the queue through the VAR, query the queue and read
 * the flow counter, each with a command of this process's own.
 *
 *   simple_mp_secondary --proc-type=secondary [EAL options] -- [ibdev]
 */
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <dvshare.h>
#include <dvshare_prm.h>

static int die(const char *what)
{
	fprintf(stderr, "secondary: %s: %s\n", what, rte_strerror(rte_errno));
	return 1;
}

int main(int argc, char **argv)
{
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq q;
	int n = rte_eal_init(argc, argv);

	if (n < 0) { /* one line: the cause and what to do */
		char why[256];
		dvshare_eal_init_explain(0, NULL, rte_errno, why, sizeof(why));
		fprintf(stderr, "%s: EAL init: %s\n", argv[0], why);
		return 1;
	}
	/* The attach happened inside rte_eal_init(): lookups are memory reads.
	 * A negative status is why it failed (logged, e.g. -EPROTO: rebuild
	 * against the primary's dvshare); 0, the primary shares nothing. */
	int st = dvshare_attach_status();
	if (st <= 0) {
		fprintf(stderr, "secondary: attach: %s\n",
			st < 0 ? rte_strerror(-st) : "the primary shares no device");
		return 1;
	}
	struct dvshare_dev *dev = dvshare_dev_lookup(argc - n > 1 ? argv[n + 1] : "sim0");
	struct dvshare_var *var = dev != NULL ? dvshare_var_lookup(dev, "db") : NULL;
	struct dvshare_obj *rxq = dev != NULL ? dvshare_obj_lookup(dev, "rxq0") : NULL;
	struct dvshare_obj *hits = dev != NULL ? dvshare_obj_lookup(dev, "hits") : NULL;
	if (var == NULL || rxq == NULL || hits == NULL)
		return die("lookup");

	/* The hot path: one store per kick, the value a virtio queue index. */
	void *db = dvshare_var_doorbell(var);
	for (int i = 0; i < 1000; i++)
		dvshare_doorbell32(db, 0, 0);

	/* QUERY_GENERAL_OBJECT on the queue, through this process's context. */
	if (dvshare_obj_query(rxq, in, dvshare_prm_virtq_query(in, dvshare_obj_id(rxq)), out,
			      sizeof(out)) != 0)
		return die("query rxq0");
	dvshare_prm_virtq_parse(out, &q);
	printf("secondary: rxq0: queue %u, %u entries, state %s, on pd %u\n", q.queue_index,
	       q.queue_size, dvshare_prm_virtq_state_str(q.state), q.pd);

	/* QUERY_FLOW_COUNTER: the counter's values come back in the output. */
	if (dvshare_obj_query(hits, in, dvshare_prm_query_flow_counter(in, dvshare_obj_id(hits), 0),
			      out, DVSHARE_PRM_FLOW_COUNTER_OUT_SIZE) != 0)
		return die("query hits");
	printf("secondary: hits: %lu packets, %lu bytes\n",
	       (unsigned long)dvshare_prm_flow_counter_packets(out),
	       (unsigned long)dvshare_prm_flow_counter_octets(out));
	printf("secondary: rang rxq0 1000 times through db\n");

	dvshare_var_release(var);
	dvshare_obj_release(rxq);
	dvshare_obj_release(hits);
	rte_eal_cleanup();
	return 0;
}
