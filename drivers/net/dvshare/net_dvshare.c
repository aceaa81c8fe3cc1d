/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dvshare: probe and remove, devargs (doc/net_dvshare.md).
 *
 *   --vdev net_dvshare0,dev=sim0[,queues=N][,qsize=N][,base=N][,mac=MAC][,engine=E]
 *
 * The primary parses the devargs, opens the dvshare device (or uses the
 * one the application opened), makes the port's doorbell and its shared
 * objects, and runs the software device's engine when it is one. A
 * secondary gets the port from the vdev bus (which asks the primary) and
 * attaches: its own device handle and doorbell mapping, imported during
 * its rte_eal_init() by dvshare.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include "dvs_sim.h"
#include "net_dvshare.h"

RTE_LOG_REGISTER_DEFAULT(dvs_eth_logtype, NOTICE);

#define KEY_DEV "dev"
#define KEY_QUEUES "queues"
#define KEY_QSIZE "qsize"
#define KEY_BASE "base"
#define KEY_MAC "mac"
#define KEY_ENGINE "engine"

static const char *const keys[] = { KEY_DEV, KEY_QUEUES, KEY_QSIZE, KEY_BASE, KEY_MAC, KEY_ENGINE };

struct devargs {
	char dev[64];
	unsigned long queues, qsize, base;
	struct rte_ether_addr mac;
	int have_mac;
	int engine; /* enum dvs_eth_engine, or -1: the default */
};

/* A number of @key in [@lo, @hi]. */
static int number(const char *name, const char *key, const char *v, unsigned long lo,
		  unsigned long hi, unsigned long *out)
{
	char *end;

	errno = 0;
	unsigned long n = strtoul(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || n < lo || n > hi) {
		DVS_ETH_LOG(ERR, "%s: %s=%s: want a number from %lu to %lu", name, key, v, lo, hi);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static int one_arg(const char *name, const char *key, const char *v, struct devargs *a)
{
	if (strcmp(key, KEY_DEV) == 0) {
		if (v[0] == '\0' || strlen(v) >= sizeof(a->dev)) {
			DVS_ETH_LOG(ERR, "%s: %s=%s: want an ibdev name (sim0, mlx5_0)", name, key, v);
			return -EINVAL;
		}
		snprintf(a->dev, sizeof(a->dev), "%s", v);
		return 0;
	}
	if (strcmp(key, KEY_QUEUES) == 0)
		return number(name, key, v, 1, DVS_ETH_MAX_QUEUES, &a->queues);
	if (strcmp(key, KEY_QSIZE) == 0) {
		int rc = number(name, key, v, DVS_ETH_MIN_DESC, DVS_ETH_MAX_DESC, &a->qsize);
		if (rc == 0 && (a->qsize & (a->qsize - 1)) != 0) {
			DVS_ETH_LOG(ERR, "%s: %s=%s: want a power of two", name, key, v);
			return -EINVAL;
		}
		return rc;
	}
	if (strcmp(key, KEY_BASE) == 0)
		return number(name, key, v, 0, 0x7fff, &a->base);
	if (strcmp(key, KEY_MAC) == 0) {
		if (rte_ether_unformat_addr(v, &a->mac) != 0 || !rte_is_unicast_ether_addr(&a->mac)) {
			DVS_ETH_LOG(ERR, "%s: %s=%s: want a unicast MAC address (02:00:00:00:00:01)",
				    name, key, v);
			return -EINVAL;
		}
		a->have_mac = 1;
		return 0;
	}
	if (strcmp(key, KEY_ENGINE) == 0) {
		a->engine = strcmp(v, "thread") == 0	? DVS_ETH_ENGINE_THREAD
			    : strcmp(v, "service") == 0 ? DVS_ETH_ENGINE_SERVICE
			    : strcmp(v, "none") == 0	? DVS_ETH_ENGINE_NONE
							: -2;
		if (a->engine == -2) {
			DVS_ETH_LOG(ERR, "%s: %s=%s: want thread, service or none", name, key, v);
			return -EINVAL;
		}
		return 0;
	}
	DVS_ETH_LOG(ERR, "%s: unknown key %s=%s (the keys: dev, queues, qsize, base, mac, engine)",
		    name, key, v);
	return -EINVAL;
}

static int parse(const char *name, const char *args, struct devargs *a)
{
	struct rte_kvargs *kv;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	a->queues = 1;
	a->qsize = DVS_ETH_DEFAULT_DESC;
	a->engine = -1;
	kv = rte_kvargs_parse(args != NULL ? args : "", NULL);
	if (kv == NULL) {
		DVS_ETH_LOG(ERR, "%s: devargs \"%s\" do not parse as key=value,...", name, args);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < kv->count && rc == 0; i++) {
		const char *v = kv->pairs[i].value != NULL ? kv->pairs[i].value : "";
		for (unsigned int j = 0; j < i && rc == 0; j++)
			if (strcmp(kv->pairs[j].key, kv->pairs[i].key) == 0) {
				DVS_ETH_LOG(ERR, "%s: %s given twice", name, kv->pairs[i].key);
				rc = -EINVAL;
			}
		if (rc == 0)
			rc = one_arg(name, kv->pairs[i].key, v, a);
	}
	rte_kvargs_free(kv);
	if (rc == 0 && a->dev[0] == '\0') {
		DVS_ETH_LOG(ERR, "%s: no %s=: name the dvshare device (dev=sim0, dev=mlx5_0)", name,
			    KEY_DEV);
		rc = -EINVAL;
	}
	if (rc == 0 && 2 * (a->base + a->queues) > 0x10000) {
		DVS_ETH_LOG(ERR, "%s: base=%lu with queues=%lu: past the device's queue indexes", name,
			    a->base, a->queues);
		rc = -EINVAL;
	}
	RTE_SET_USED(keys);
	return rc;
}

/* The software device's engine, when the port is on one. */
static int engine_start(struct dvs_eth_shared *s, struct dvs_eth_proc *p, int want)
{
	struct ibv_context *ctx = dvshare_dev_ctx(p->dev);
	int is_sim = dvs_sim_mtu(ctx) != 0;
	int rc = 0;

	if (!is_sim) {
		if (want >= 0 && want != DVS_ETH_ENGINE_NONE)
			DVS_ETH_LOG(NOTICE, "%s: engine=: %s is a NIC, its own engine", s->prefix,
				    s->ibdev);
		s->engine = DVS_ETH_ENGINE_NONE;
		return 0;
	}
	s->engine = (uint8_t)(want < 0 ? DVS_ETH_ENGINE_THREAD : want);
	if (s->engine == DVS_ETH_ENGINE_THREAD) {
		struct dvs_sim_engine *e = dvs_sim_engine_create(ctx);
		rc = e != NULL ? dvs_sim_engine_start(e, 0) : -errno;
		if (rc != 0 && e != NULL)
			dvs_sim_engine_destroy(e);
		else
			p->engine = e;
	} else if (s->engine == DVS_ETH_ENGINE_SERVICE) {
		rc = dvshare_engine_start(p->dev, NULL);
		if (rc == -EALREADY)
			rc = 0;
	}
	if (rc != 0)
		DVS_ETH_LOG(ERR, "%s: the engine of %s does not start: %s", s->prefix, s->ibdev,
			    strerror(-rc));
	return rc;
}

static void engine_stop(struct dvs_eth_proc *p)
{
	if (p->engine != NULL) {
		dvs_sim_engine_stop(p->engine);
		dvs_sim_engine_destroy(p->engine);
		p->engine = NULL;
	}
}

static void db_name(char *buf, const struct dvs_eth_shared *s)
{
	snprintf(buf, DVSHARE_NAME_MAX, "%s.db", s->prefix);
}

static void set_fast_path(struct rte_eth_dev *eth)
{
	eth->dev_ops = &dvs_eth_ops;
	eth->rx_pkt_burst = dvs_eth_rx_burst;
	eth->tx_pkt_burst = dvs_eth_tx_burst;
}

/* The device if this process has it open (asked quietly: a lookup of a
 * device not open logs that it is not). */
static struct dvshare_dev *open_dev(const char *ibdev)
{
	struct dvshare_dev *devs[64];
	int n = dvshare_dev_list(devs, RTE_DIM(devs));

	for (int i = 0; i < n && i < (int)RTE_DIM(devs); i++)
		if (strcmp(dvshare_dev_name(devs[i]), ibdev) == 0)
			return devs[i];
	return NULL;
}

static int probe_primary(struct rte_vdev_device *vdev, const char *name)
{
	struct devargs a;
	char n[DVSHARE_NAME_MAX];
	int rc = parse(name, rte_vdev_device_args(vdev), &a);

	if (rc != 0)
		return rc;
	if (strlen(name) >= DVS_ETH_NAME_MAX) {
		DVS_ETH_LOG(ERR, "%s: a name of %u characters at most (the device's object names "
			    "start with it)", name, DVS_ETH_NAME_MAX - 1);
		return -ENAMETOOLONG;
	}
	struct dvs_eth_proc *p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	int opened = 0;
	p->dev = open_dev(a.dev);
	if (p->dev == NULL) {
		p->dev = dvshare_dev_open(a.dev, NULL);
		opened = p->dev != NULL;
	}
	if (p->dev == NULL) {
		rc = -rte_errno;
		DVS_ETH_LOG(ERR, "%s: dev=%s: %s", name, a.dev, strerror(rte_errno));
		free(p);
		return rc;
	}
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;
	rc = app_caps(p->dev, &gen, &vio);
	if (rc != 0)
		DVS_ETH_LOG(ERR, "%s: dev=%s: %s", name, a.dev,
			    rc == -EOPNOTSUPP ? "the device has no VIRTIO_NET_Q emulation"
					      : strerror(-rc));
	struct rte_eth_dev *eth = NULL;
	if (rc == 0) {
		eth = rte_eth_vdev_allocate(vdev, sizeof(struct dvs_eth_shared));
		rc = eth != NULL ? 0 : -ENOMEM;
	}
	struct dvs_eth_shared *s = eth != NULL ? eth->data->dev_private : NULL;
	if (s != NULL) {
		snprintf(s->ibdev, sizeof(s->ibdev), "%s", a.dev);
		snprintf(s->prefix, sizeof(s->prefix), "%s", name);
		s->max_pairs = (uint16_t)a.queues;
		s->default_desc = (uint16_t)a.qsize;
		s->base = (uint16_t)a.base;
		s->opened_dev = (uint8_t)opened;
		uint32_t mtu = dvs_sim_mtu(dvshare_dev_ctx(p->dev));
		s->mtu = mtu != 0 ? mtu : RTE_ETHER_MTU;
		if (a.have_mac) {
			s->mac = a.mac;
		} else {
			/* Locally administered, from the port id: stable per run. */
			uint8_t m[6] = { 0x02, 0x64, 0x76, 0x73, 0, (uint8_t)eth->data->port_id };
			memcpy(s->mac.addr_bytes, m, 6);
		}
		eth->data->mac_addrs = rte_zmalloc(name, sizeof(struct rte_ether_addr), 0);
		rc = eth->data->mac_addrs != NULL ? 0 : -ENOMEM;
	}
	if (rc == 0) {
		rte_ether_addr_copy(&s->mac, eth->data->mac_addrs);
		eth->process_private = p;
		/* The doorbell: imported by every secondary in its EAL init. */
		db_name(n, s);
		p->var = dvshare_var_alloc(p->dev, n, 0);
		if (p->var == NULL) {
			rc = -rte_errno;
			DVS_ETH_LOG(ERR, "%s: doorbell %s: %s", name, n, strerror(rte_errno));
		} else {
			p->db = dvshare_var_doorbell(p->var);
		}
	}
	if (rc == 0) {
		uint32_t id;
		rc = app_tis(p->dev, &id); /* the PD, TD and TIS every queue of the device uses */
	}
	if (rc == 0)
		rc = engine_start(s, p, a.engine);
	if (rc != 0) {
		if (p->var != NULL) {
			dvshare_var_release(p->var);
			dvshare_destroy(p->dev, n, 1000);
		}
		if (eth != NULL) {
			eth->process_private = NULL;
			rte_eth_dev_release_port(eth);
		}
		if (opened)
			dvshare_dev_close(p->dev);
		free(p);
		return rc;
	}
	set_fast_path(eth);
	eth->data->promiscuous = 1;
	eth->data->all_multicast = 1;
	eth->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	rte_eth_dev_probing_finish(eth);
	DVS_ETH_LOG(INFO, "%s: port %u on %s, up to %u queue pairs from device index %u",
		    name, eth->data->port_id, a.dev, s->max_pairs, 2u * s->base);
	return 0;
}

static int probe_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct rte_eth_dev *eth = rte_eth_dev_attach_secondary(name);
	char n[DVSHARE_NAME_MAX];

	if (eth == NULL) {
		DVS_ETH_LOG(ERR, "%s: the primary has no such port", name);
		return -ENODEV;
	}
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = calloc(1, sizeof(*p));
	int rc = p != NULL ? 0 : -ENOMEM;
	if (rc == 0) {
		p->dev = dvshare_dev_lookup(s->ibdev);
		if (p->dev == NULL) {
			rc = -ENODEV;
			DVS_ETH_LOG(ERR, "%s: device %s is not attached in this process (%s): is the "
				    "primary a dvshare application of the same release?", name,
				    s->ibdev, strerror(rte_errno));
		}
	}
	if (rc == 0) {
		db_name(n, s);
		p->var = dvshare_var_lookup(p->dev, n);
		if (p->var == NULL) {
			rc = -rte_errno;
			DVS_ETH_LOG(ERR, "%s: doorbell %s: %s", name, n, strerror(rte_errno));
		} else {
			p->db = dvshare_var_doorbell(p->var);
		}
	}
	if (rc != 0) {
		free(p);
		rte_eth_dev_release_port(eth);
		return rc;
	}
	eth->process_private = p;
	eth->device = &vdev->device; /* the primary's allocate set its own */
	set_fast_path(eth);
	rte_eth_dev_probing_finish(eth);
	DVS_ETH_LOG(DEBUG, "%s: port %u attached", name, eth->data->port_id);
	return 0;
}

static int dvs_eth_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);

	if (dvs_eth_self == 0)
		dvs_eth_self = (uint32_t)getpid();
	DVS_ETH_LOG(DEBUG, "%s: probe in the %s", name,
		    rte_eal_process_type() == RTE_PROC_PRIMARY ? "primary" : "secondary");
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		return probe_primary(vdev, name);
	return probe_secondary(vdev, name);
}

/* This process lets go of every queue it drives. */
static void release_queues(struct dvs_eth_shared *s)
{
	for (uint16_t k = 0; k < DVS_ETH_MAX_QUEUES; k++) {
		if (s->rxq[k] != NULL)
			dvs_eth_queue_release(s->rxq[k]);
		if (s->txq[k] != NULL)
			dvs_eth_queue_release(s->txq[k]);
	}
}

int dvs_eth_close(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX];

	if (p == NULL)
		return 0;
	release_queues(s);
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		if (s->started) {
			s->started = 0;
			dvs_eth_port_stop(eth);
		}
		for (uint16_t k = 0; k < DVS_ETH_MAX_QUEUES; k++) {
			eth->dev_ops->rx_queue_release(eth, k);
			eth->dev_ops->tx_queue_release(eth, k);
		}
		dvs_eth_port_free(eth);
	}
	if (p->var != NULL)
		dvshare_var_release(p->var);
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		db_name(n, s);
		dvshare_destroy(p->dev, n, 2000);
		engine_stop(p);
		if (s->opened_dev)
			dvshare_dev_close(p->dev);
	}
	free(p);
	eth->process_private = NULL;
	return 0;
}

static int dvs_eth_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *eth = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (eth == NULL)
		return 0;
	dvs_eth_close(eth);
	return rte_eth_dev_release_port(eth);
}

static struct rte_vdev_driver dvs_eth_driver = {
	.probe = dvs_eth_probe,
	.remove = dvs_eth_remove,
};

RTE_PMD_REGISTER_VDEV(net_dvshare, dvs_eth_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_dvshare,
	"dev=<ibdev> queues=<1-16> qsize=<64-32768> base=<int> mac=<xx:xx:xx:xx:xx:xx> "
	"engine=<thread|service|none>");
