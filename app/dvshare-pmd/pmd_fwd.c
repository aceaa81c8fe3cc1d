/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports and forwarding, as testpmd has them: "port create" makes a
 * virtio-net port (app/common/app_port.h: queues 2k and 2k + 1) that this
 * process drives; "set fwd", "set burst", "set txpkts", "start [tx_first
 * [n]]", "stop" and "show port stats" work as testpmd's do. Forwarding
 * runs on the first worker lcore when there is one (-l 0,1), else on a
 * thread of its own, while the prompt (or a script read from stdin)
 * goes on.
 *
 * txonly sends frames of txpkts bytes: an Ethernet header (locally
 * administered addresses, EtherType 0x88b5, IEEE's local experimental
 * one), a 32-bit sequence number, then bytes seq + i. rxonly checks each
 * such frame it receives byte for byte ("RX-bad" counts the ones that
 * differ) and frees it; io sends back what it receives; macswap swaps the
 * Ethernet addresses first.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "app_port.h"
#include "pmd.h"

#define MAX_PORTS 8
#define MAX_BURST 512
#define ETHER_TYPE_LOCAL 0x88b5

enum fwd_mode { FWD_IO, FWD_TXONLY, FWD_RXONLY, FWD_MACSWAP };
static const char *const mode_names[] = { "io", "txonly", "rxonly", "macswap" };

static struct {
	struct app_port *p;
	uint16_t id;            /* the port number the user gave */
	uint32_t tx_seq;        /* txonly: the next sequence number */
	uint32_t rx_seq;        /* rxonly: the next one expected (for "RX-bad" only) */
	uint64_t rx_bad;
	uint64_t fwd_dropped;   /* forwarded packets the TX ring could not take */
	/* For "show port stats": the counts and time of the last show. */
	uint64_t last_rx, last_tx, last_rx_bytes, last_tx_bytes, last_ns;
} ports[MAX_PORTS];

static enum fwd_mode mode = FWD_IO;
static uint16_t burst = 32;
static uint16_t txpkts = 64;
static volatile int running;
static pthread_t thread;
static unsigned int worker = RTE_MAX_LCORE; /* the lcore forwarding runs on, if any */

static int slot_of(uint16_t id)
{
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL && ports[i].id == id)
			return i;
	return -1;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* --------------------------------------------------------------- frames */

static void frame_fill(struct rte_mbuf *m, uint16_t port, uint32_t seq, uint16_t len)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)d;
	const uint8_t dst[RTE_ETHER_ADDR_LEN] = { 0x02, 0, 0, 0, 0, (uint8_t)port };
	const uint8_t src[RTE_ETHER_ADDR_LEN] = { 0x02, 0, 0, 0, 1, (uint8_t)port };

	memcpy(&eh->dst_addr, dst, sizeof(dst));
	memcpy(&eh->src_addr, src, sizeof(src));
	eh->ether_type = rte_cpu_to_be_16(ETHER_TYPE_LOCAL);
	uint32_t be = rte_cpu_to_be_32(seq);
	memcpy(d + sizeof(*eh), &be, sizeof(be));
	for (uint16_t i = sizeof(*eh) + 4; i < len; i++)
		d[i] = (uint8_t)(seq + i);
	m->data_len = len;
	m->pkt_len = len;
}

/* A txonly frame whose bytes are all as sent? (Its sequence number says
 * what they must be.) */
static int frame_ok(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)d;
	uint32_t be, seq;

	if (m->data_len < sizeof(*eh) + 4 || eh->ether_type != rte_cpu_to_be_16(ETHER_TYPE_LOCAL))
		return 0;
	memcpy(&be, d + sizeof(*eh), sizeof(be));
	seq = rte_be_to_cpu_32(be);
	for (uint16_t i = sizeof(*eh) + 4; i < m->data_len; i++)
		if (d[i] != (uint8_t)(seq + i))
			return 0;
	return 1;
}

/* Send one burst of txonly frames on port slot @i: how many went. */
static uint16_t send_burst(int i, uint16_t count)
{
	struct rte_mbuf *m[MAX_BURST];
	struct app_port *p = ports[i].p;

	if (rte_pktmbuf_alloc_bulk(p->pool, m, count) != 0) {
		app_port_tx_done(p);
		return 0;
	}
	for (uint16_t k = 0; k < count; k++)
		frame_fill(m[k], ports[i].id, ports[i].tx_seq + k, txpkts);
	uint16_t n = app_port_tx_burst(p, m, count);
	ports[i].tx_seq += n;
	if (n < count)
		rte_pktmbuf_free_bulk(m + n, count - n);
	return n;
}

/* Send @bursts whole bursts on port slot @i, waiting for ring room (1 s
 * without progress at most): 0, or -ETIMEDOUT. */
static int send_whole(int i, uint32_t bursts)
{
	struct app_port *p = ports[i].p;
	uint64_t want = (uint64_t)bursts * burst, done = 0, t = now_ns();

	while (done < want) {
		app_port_tx_done(p);
		uint64_t n = RTE_MIN(RTE_MIN((uint64_t)burst, want - done), (uint64_t)p->ring[1].num_free);
		n = n != 0 ? send_burst(i, (uint16_t)n) : 0;
		done += n;
		if (n != 0) {
			t = now_ns();
			continue;
		}
		if (now_ns() - t > 1000000000ull)
			return -ETIMEDOUT;
		usleep(50);
	}
	return 0;
}

/* ---------------------------------------------------------- forwarding */

static void fwd_port(int i)
{
	struct rte_mbuf *m[MAX_BURST];
	struct app_port *p = ports[i].p;
	uint16_t n;

	if (mode == FWD_TXONLY) {
		send_burst(i, burst);
		return;
	}
	n = app_port_rx_burst(p, m, burst);
	if (n == 0) {
		app_port_tx_done(p);
		return;
	}
	if (mode == FWD_RXONLY) {
		for (uint16_t k = 0; k < n; k++)
			ports[i].rx_bad += !frame_ok(m[k]);
		rte_pktmbuf_free_bulk(m, n);
		return;
	}
	if (mode == FWD_MACSWAP)
		for (uint16_t k = 0; k < n; k++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m[k], struct rte_ether_hdr *);
			struct rte_ether_addr a = eh->dst_addr;
			eh->dst_addr = eh->src_addr;
			eh->src_addr = a;
		}
	uint16_t sent = app_port_tx_burst(p, m, n);
	if (sent < n) {
		ports[i].fwd_dropped += n - sent;
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	}
}

static int fwd_loop(void *arg)
{
	(void)arg;
	while (running)
		for (int i = 0; i < MAX_PORTS; i++)
			if (ports[i].p != NULL)
				fwd_port(i);
	return 0;
}

static void *fwd_thread(void *arg)
{
	fwd_loop(arg);
	return NULL;
}

/* ------------------------------------------------------------ commands */

int pmd_port_create(const char *dev, uint32_t id, uint32_t size)
{
	char what[64], name[APP_PORT_NAME_MAX];
	struct dvshare_dev *d;
	uint8_t status = 0;
	uint32_t synd = 0;
	int slot = -1, rc;

	snprintf(what, sizeof(what), "port create %u", id);
	if (running)
		return pmd_error(-EBUSY, what, "stop forwarding first");
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	if (id >= 128 || size < 2 || size > 32768 || (size & (size - 1)) != 0)
		return pmd_error(-EINVAL, what, "port 0 to 127, a queue size a power of two to 32768");
	if (slot_of((uint16_t)id) >= 0)
		return pmd_error(-EEXIST, what, "this process has port %u already", id);
	for (int i = 0; i < MAX_PORTS && slot < 0; i++)
		if (ports[i].p == NULL)
			slot = i;
	if (slot < 0)
		return pmd_error(-ENOSPC, what, "%d ports at most", MAX_PORTS);
	snprintf(name, sizeof(name), "p%u", id);
	rc = app_port_create(d, name, (uint16_t)id, (uint16_t)size, &ports[slot].p, &status, &synd);
	if (rc != 0) {
		ports[slot].p = NULL;
		if (rc == -EREMOTEIO && status != 0)
			return pmd_error(rc, what, "%s (status %s, syndrome 0x%08x)", strerror(-rc),
					 dvshare_prm_status_str(status), synd);
		return pmd_error(rc, what, "%s", strerror(-rc));
	}
	struct app_port *made = ports[slot].p;
	memset(&ports[slot], 0, sizeof(ports[slot]));
	ports[slot].p = made;
	ports[slot].id = (uint16_t)id;
	ports[slot].last_ns = now_ns();
	printf("port %u on %s: rxq %s.rxq (queue %u), txq %s.txq (queue %u), %u entries, "
	       "doorbell %s.db\n", id, dev, name, 2 * id, name, 2 * id + 1, size, name);
	return 0;
}

int pmd_port_destroy(uint32_t id)
{
	char what[64];
	int i = slot_of((uint16_t)id);

	snprintf(what, sizeof(what), "port destroy %u", id);
	if (running)
		return pmd_error(-EBUSY, what, "stop forwarding first");
	if (i < 0)
		return pmd_error(-ENOENT, what, "no port %u in this process", id);
	app_port_destroy(ports[i].p, 2000);
	ports[i].p = NULL;
	printf("port %u destroyed\n", id);
	return 0;
}

int pmd_set_fwd(const char *m)
{
	for (unsigned int i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (strcmp(m, mode_names[i]) == 0) {
			if (running)
				return pmd_error(-EBUSY, "set fwd", "stop forwarding first");
			mode = (enum fwd_mode)i;
			printf("Set %s packet forwarding mode\n", m);
			return 0;
		}
	return pmd_error(-EINVAL, "set fwd", "io, txonly, rxonly or macswap");
}

int pmd_set_burst(uint32_t n)
{
	if (n == 0 || n > MAX_BURST)
		return pmd_error(-EINVAL, "set burst", "1 to %d", MAX_BURST);
	if (running)
		return pmd_error(-EBUSY, "set burst", "stop forwarding first");
	burst = (uint16_t)n;
	printf("Number of packets per burst set to %u\n", n);
	return 0;
}

int pmd_set_txpkts(uint32_t n)
{
	/* The frame, then its 12-byte header, in one mbuf's data room. */
	uint32_t max = RTE_MBUF_DEFAULT_DATAROOM;

	if (n < RTE_ETHER_HDR_LEN + 4 || n > max)
		return pmd_error(-EINVAL, "set txpkts", "%u to %u bytes", RTE_ETHER_HDR_LEN + 4, max);
	if (running)
		return pmd_error(-EBUSY, "set txpkts", "stop forwarding first");
	txpkts = (uint16_t)n;
	printf("Packet length set to %u\n", n);
	return 0;
}

static int any_port(void)
{
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL)
			return 1;
	return 0;
}

int pmd_start(int tx_first, uint32_t bursts)
{
	if (running)
		return pmd_error(-EBUSY, "start", "packet forwarding already started");
	if (!any_port())
		return pmd_error(-ENODEV, "start", "no port (port create <dev> <port>)");
	if (tx_first)
		for (int i = 0; i < MAX_PORTS; i++)
			if (ports[i].p != NULL && send_whole(i, bursts) != 0)
				return pmd_error(-ETIMEDOUT, "start tx_first",
						 "port %u: the device took no packet for 1 s (is "
						 "its engine running?)", ports[i].id);
	running = 1;
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker < RTE_MAX_LCORE && rte_eal_remote_launch(fwd_loop, NULL, worker) != 0)
		worker = RTE_MAX_LCORE;
	if (worker >= RTE_MAX_LCORE && pthread_create(&thread, NULL, fwd_thread, NULL) != 0) {
		running = 0;
		return pmd_error(-EAGAIN, "start", "no thread for forwarding");
	}
	if (worker < RTE_MAX_LCORE)
		printf("%s packet forwarding started on lcore %u\n", mode_names[mode], worker);
	else
		printf("%s packet forwarding started on a thread (no worker lcore)\n",
		       mode_names[mode]);
	return 0;
}

/* Wait (1 s at most) for the device to take what the ports sent. */
static void drain(void)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < MAX_PORTS; i++) {
		while (ports[i].p != NULL && app_vring_in_flight(&ports[i].p->ring[1]) != 0 &&
		       now_ns() - t0 < 1000000000ull) {
			app_port_tx_done(ports[i].p);
			usleep(100);
		}
	}
}

static void fwd_stats(int i)
{
	const struct app_port_stats *s = &ports[i].p->st;

	printf("  ---------------------- Forward statistics for port %-2u ----------------------\n",
	       ports[i].id);
	printf("  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 " RX-total: %" PRIu64 "\n",
	       s->rx_packets, s->rx_nombuf, s->rx_packets + s->rx_nombuf);
	printf("  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 " TX-total: %" PRIu64 "\n",
	       s->tx_packets, s->tx_full + ports[i].fwd_dropped,
	       s->tx_packets + s->tx_full + ports[i].fwd_dropped);
	if (mode == FWD_RXONLY)
		printf("  RX-bad: %" PRIu64 " (frames not as txonly sent them)\n", ports[i].rx_bad);
	printf("  ----------------------------------------------------------------------------\n");
}

int pmd_stop(void)
{
	if (!running)
		return pmd_error(-EINVAL, "stop", "packet forwarding not started");
	printf("Telling cores to stop...\nWaiting for lcores to finish...\n");
	running = 0;
	if (worker < RTE_MAX_LCORE)
		rte_eal_wait_lcore(worker);
	else
		pthread_join(thread, NULL);
	drain();
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL)
			fwd_stats(i);
	printf("Done.\n");
	return 0;
}

/* testpmd's NIC statistics, and beside them the device's own view. */
static void port_stats(int i)
{
	const struct app_port_stats *s = &ports[i].p->st;
	struct app_port_device_view v;
	uint64_t now = now_ns(), dt = now - ports[i].last_ns;
	double sec = dt != 0 ? (double)dt / 1e9 : 1;

	printf("\n  ######################## NIC statistics for port %-2u ########################\n",
	       ports[i].id);
	printf("  RX-packets: %-10" PRIu64 " RX-missed: %-10" PRIu64 " RX-bytes:  %" PRIu64 "\n",
	       s->rx_packets, (uint64_t)0, s->rx_bytes);
	printf("  RX-errors: %" PRIu64 "\n  RX-nombuf:  %-10" PRIu64 "\n", ports[i].rx_bad,
	       s->rx_nombuf);
	printf("  TX-packets: %-10" PRIu64 " TX-errors: %-10" PRIu64 " TX-bytes:  %" PRIu64 "\n",
	       s->tx_packets, s->tx_full + ports[i].fwd_dropped, s->tx_bytes);
	printf("\n  Throughput (since last show)\n");
	printf("  Rx-pps: %12.0f          Rx-bps: %12.0f\n",
	       (double)(s->rx_packets - ports[i].last_rx) / sec,
	       (double)(s->rx_bytes - ports[i].last_rx_bytes) * 8 / sec);
	printf("  Tx-pps: %12.0f          Tx-bps: %12.0f\n",
	       (double)(s->tx_packets - ports[i].last_tx) / sec,
	       (double)(s->tx_bytes - ports[i].last_tx_bytes) * 8 / sec);
	ports[i].last_rx = s->rx_packets;
	ports[i].last_tx = s->tx_packets;
	ports[i].last_rx_bytes = s->rx_bytes;
	ports[i].last_tx_bytes = s->tx_bytes;
	ports[i].last_ns = now;
	printf("  Kicks: %" PRIu64 " in %" PRIu64 " TX bursts, %" PRIu64 " on RX\n", s->tx_kicks,
	       s->tx_bursts, s->rx_kicks);
	if (app_port_device_view(ports[i].p, &v) == 0) {
		printf("  Device view (QUERY, VIRTIO_Q_COUNTERS):\n");
		for (int q = 1; q >= 0; q--) {
			const struct dvshare_prm_virtq_counters *c = &v.c[q];
			printf("  %s.%s  queue %-3u %-7s hw_available_index=%-5u hw_used_index=%-5u",
			       ports[i].p->name, q ? "txq" : "rxq", v.q[q].queue_index,
			       dvshare_prm_virtq_state_str(v.q[q].state), v.q[q].hw_available_index,
			       v.q[q].hw_used_index);
			if (v.have_counters)
				printf(" desc=%" PRIu64 "/%" PRIu64 " errors=%u", c->received_desc,
				       c->completed_desc,
				       c->bad_desc_errors + c->exceed_max_chain + c->invalid_buffer);
			printf("\n");
		}
	}
	printf("  ############################################################################\n");
}

int pmd_show_port_stats(const char *which)
{
	int shown = 0;

	if (strcmp(which, "all") != 0) {
		char *end;
		unsigned long id = strtoul(which, &end, 10);
		int i = *end == '\0' && id < 128 ? slot_of((uint16_t)id) : -1;
		if (i < 0)
			return pmd_error(-ENOENT, "show port stats", "no port %s in this process", which);
		port_stats(i);
		return 0;
	}
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL) {
			port_stats(i);
			shown++;
		}
	if (shown == 0)
		printf("ports: none\n");
	return 0;
}

int pmd_steer(const char *dev, uint32_t tx, uint32_t rx, const char *counter)
{
	char what[64];
	struct dvshare_dev *d;

	snprintf(what, sizeof(what), "steer %u %u", tx, rx);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	int rc = dvshare_engine_steer(d, (int)tx, (int)rx, counter);
	if (rc == -ENOTSUP)
		return pmd_error(rc, what, "a NIC steers with its flow rules (the software device only)");
	if (rc == -EPERM)
		return pmd_error(rc, what, "for the primary (this is a secondary)");
	if (rc != 0)
		return pmd_error(rc, what, "%s", strerror(-rc));
	printf("queue %u delivers to queue %u%s%s\n", tx, rx, counter != NULL ? ", counted by " : "",
	       counter != NULL ? counter : "");
	return 0;
}

void pmd_fwd_shutdown(void)
{
	if (running)
		pmd_stop();
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL) {
			app_port_destroy(ports[i].p, 2000);
			ports[i].p = NULL;
		}
}
