/* SPDX-License-Identifier: BSD-3-Clause */
#include "app_objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <infiniband/verbs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

static int general_cmd(struct dvshare_dev *dev, uint16_t cap_type, uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE];

	dvshare_prm_query_hca_cap(in, cap_type);
	return dvshare_dev_general_cmd(dev, in, sizeof(in), out, DVSHARE_PRM_HCA_CAP_OUT_SIZE);
}

int app_caps(struct dvshare_dev *dev, struct dvshare_prm_hca_caps *gen,
	     struct dvshare_prm_virtio_caps *vio)
{
	uint8_t out[DVSHARE_PRM_HCA_CAP_OUT_SIZE];
	int rc = general_cmd(dev, DVSHARE_PRM_CAP_GENERAL, out);

	if (vio != NULL)
		memset(vio, 0, sizeof(*vio));
	if (rc != 0)
		return rc;
	dvshare_prm_hca_caps_parse(out, gen);
	if (!dvshare_prm_hca_has_obj(gen, DVSHARE_PRM_OBJ_VIRTIO_NET_Q))
		return -EOPNOTSUPP;
	if (vio == NULL)
		return 0;
	rc = general_cmd(dev, DVSHARE_PRM_CAP_VIRTIO_EMULATION, out);
	if (rc == 0)
		dvshare_prm_virtio_caps_parse(out, vio);
	return rc;
}

/* Create a DEVX object from @in and publish it; its id in *id. @flags:
 * dvshare_obj_create_flags()'s. */
static int create_flags(struct dvshare_dev *dev, const char *name, const void *in, size_t inlen,
			uint32_t *id, uint8_t *status, uint32_t *syndrome, uint32_t flags)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE] = { 0 }; /* status 0: the device did not answer */
	struct dvshare_obj *o = dvshare_obj_create_flags(dev, name, in, inlen, out, sizeof(out),
							 flags);

	if (o == NULL) {
		int rc = -rte_errno;
		if (status != NULL)
			*status = rc == -EREMOTEIO ? dvshare_prm_out_status(out) : 0;
		if (syndrome != NULL)
			*syndrome = rc == -EREMOTEIO ? dvshare_prm_out_syndrome(out) : 0;
		return rc;
	}
	if (id != NULL)
		*id = dvshare_obj_id(o);
	dvshare_obj_release(o);
	return 0;
}

static int create(struct dvshare_dev *dev, const char *name, const void *in, size_t inlen,
		  uint32_t *id, uint8_t *status, uint32_t *syndrome)
{
	return create_flags(dev, name, in, inlen, id, status, syndrome, 0);
}


/* True, and its id in *id, when object @name is published. */
static int published(struct dvshare_dev *dev, const char *name, uint32_t *id)
{
	struct dvshare_obj *o = dvshare_obj_lookup(dev, name);

	if (o == NULL)
		return 0;
	if (id != NULL)
		*id = dvshare_obj_id(o);
	dvshare_obj_release(o);
	return 1;
}

/* The id of published object @name, or create it from @in. The device's
 * shared objects are every process's: made persistent, so a secondary
 * that makes one first leaves it to the primary. Another process may make
 * it between the lookup and the create (EEXIST): then it is there. */
static int shared_obj(struct dvshare_dev *dev, const char *name, const void *in, size_t inlen,
		      uint32_t *id)
{
	if (published(dev, name, id))
		return 0;
	int rc = create_flags(dev, name, in, inlen, id, NULL, NULL, DVSHARE_CREATE_PERSIST);
	return rc == -EEXIST && published(dev, name, id) ? 0 : rc;
}

int app_pd(struct dvshare_dev *dev, uint32_t *pd)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE];

	return shared_obj(dev, APP_PD_NAME, in, dvshare_prm_alloc_pd(in), pd);
}

int app_tis(struct dvshare_dev *dev, uint32_t *tisn)
{
	uint8_t in[DVSHARE_PRM_CREATE_TIS_SIZE];
	uint32_t td;

	if (published(dev, APP_TIS_NAME, tisn))
		return 0;
	int rc = shared_obj(dev, APP_TD_NAME, in, dvshare_prm_alloc_td(in), &td);
	/* Port affinity 1, as DPDK's vdpa driver gives its first TIS. */
	return rc != 0 ? rc : shared_obj(dev, APP_TIS_NAME, in, dvshare_prm_create_tis(in, td, 1), tisn);
}

int app_virtq_event_mode(const struct dvshare_prm_virtio_caps *vio)
{
	return (vio->event_modes >> DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX) & 1
		       ? DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX
		       : -EOPNOTSUPP;
}

int app_counter_create(struct dvshare_dev *dev, const char *name, uint32_t *id)
{
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE];

	return create(dev, name, in, dvshare_prm_alloc_flow_counter(in, 0), id, NULL, NULL);
}

int app_counter_read(struct dvshare_obj *counter, uint64_t *packets, uint64_t *octets)
{
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE], out[DVSHARE_PRM_FLOW_COUNTER_OUT_SIZE];
	size_t len = dvshare_prm_query_flow_counter(in, dvshare_obj_id(counter), 0);
	int rc = dvshare_obj_query(counter, in, len, out, sizeof(out));

	if (rc != 0)
		return rc;
	*packets = dvshare_prm_flow_counter_packets(out);
	*octets = dvshare_prm_flow_counter_octets(out);
	return 0;
}

int app_umem_reg(struct dvshare_dev *dev, const char *name, uint64_t size, uint32_t *id)
{
	/* DPDK memory, which the primary registers for a secondary through
	 * its own mapping of it, and frees with the UMEM. */
	struct dvshare_umem *u = dvshare_umem_alloc(dev, name, size, 4096, IBV_ACCESS_LOCAL_WRITE);

	if (u == NULL)
		return -rte_errno;
	*id = dvshare_umem_id(u);
	dvshare_umem_release(u);
	return 0;
}

/* The queue's own counters, as *id: 0, or a negative errno. */
static int virtq_counters(struct dvshare_dev *dev, const char *cname, uint32_t *id)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];

	return create(dev, cname, in, dvshare_prm_virtq_counters_create(in), id, NULL, NULL);
}

/* What every key of these helpers is: on the device's PD, the device may
 * read and write through it, no QP, starting at @start. */
static int key_base(struct dvshare_dev *dev, struct dvshare_prm_mkey *m, uint64_t start)
{
	memset(m, 0, sizeof(*m));
	m->lr = m->lw = 1;
	m->qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m->start_addr = start;
	return app_pd(dev, &m->pd);
}

int app_mkey_create(struct dvshare_dev *dev, const char *name, uint32_t umem_id, const void *addr,
		    uint64_t len, uint32_t *mkey)
{
	uint8_t in[DVSHARE_PRM_MKEY_SIZE];
	struct dvshare_prm_mkey m;
	int rc = key_base(dev, &m, (uintptr_t)addr);

	if (rc != 0)
		return rc;
	m.len = len;
	m.umem_id = umem_id;
	return create(dev, name, in, dvshare_prm_mkey_create_direct(in, &m), mkey, NULL, NULL);
}

int app_mkey_klm_create(struct dvshare_dev *dev, const char *name, uint64_t start,
			const struct dvshare_prm_klm *klm, unsigned int n, uint32_t *mkey)
{
	uint8_t in[DVSHARE_PRM_MKEY_KLM_SIZE(APP_KLM_MAX)];
	struct dvshare_prm_mkey m;
	int rc;

	if (klm == NULL || n == 0 || n > APP_KLM_MAX)
		return -EINVAL;
	rc = key_base(dev, &m, start);
	if (rc != 0)
		return rc;
	for (unsigned int i = 0; i < n; i++)
		m.len += klm[i].byte_count;
	return create(dev, name, in, dvshare_prm_mkey_create_klm(in, &m, klm, n), mkey, NULL, NULL);
}

int app_virtq_create(struct dvshare_dev *dev, const char *name, uint16_t queue_index,
		     uint16_t queue_size, uint32_t *obj_id, uint8_t *status, uint32_t *syndrome)
{
	return app_virtq_create_rings(dev, name, queue_index, queue_size, NULL, obj_id, status,
				      syndrome);
}

int app_virtq_create_rings(struct dvshare_dev *dev, const char *name, uint16_t queue_index,
			   uint16_t queue_size, const struct app_virtq_rings *rings,
			   uint32_t *obj_id, uint8_t *status, uint32_t *syndrome)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;
	struct dvshare_prm_virtq q;
	char uname[DVSHARE_NAME_MAX], cname[DVSHARE_NAME_MAX];
	int rc;

	/* Every name the queue needs must fit before anything is made. */
	if (name == NULL || strlen(name) + sizeof(APP_COUNTERS_SUFFIX) > sizeof(cname))
		return name == NULL ? -EINVAL : -ENAMETOOLONG;
	rc = app_caps(dev, &gen, &vio);
	if (rc != 0)
		return rc;
	if (!((vio.queue_types >> DVSHARE_PRM_VIRTQ_TYPE_SPLIT) & 1))
		return -EOPNOTSUPP;
	memset(&q, 0, sizeof(q));
	q.queue_index = queue_index;
	q.queue_size = queue_size;
	q.state = DVSHARE_PRM_VIRTQ_STATE_INIT;
	q.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_SPLIT;
	q.virtio_version_1_0 = vio.virtio_version_1_0;
	rc = app_virtq_event_mode(&vio);
	if (rc < 0)
		return rc;
	q.event_mode = (uint8_t)rc;
	if (rings != NULL) {
		q.mkey = rings->mkey;
		q.desc_addr = rings->desc;
		q.available_addr = rings->avail;
		q.used_addr = rings->used;
	}
	rc = app_pd(dev, &q.pd);
	if (rc == 0)
		rc = app_tis(dev, &q.tisn_or_qpn);
	snprintf(cname, sizeof(cname), "%s" APP_COUNTERS_SUFFIX, name);
	/* DPDK gives each queue its own counters when the device has them. */
	const int counters = dvshare_prm_hca_has_obj(&gen, DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
	if (rc == 0 && counters)
		rc = virtq_counters(dev, cname, &q.counter_set_id);
	const int counters_made = rc == 0 && counters;
	/* @made counts the UMEMs this call registered, the only ones to undo:
	 * one that failed (EEXIST: a duplicate name) is someone else's. */
	unsigned int made = 0;
	while (made < 3 && rc == 0) {
		uint64_t size = dvshare_prm_virtq_umem_size(&vio, made, queue_size);
		if (size > UINT32_MAX) {
			rc = -EINVAL;
			break;
		}
		snprintf(uname, sizeof(uname), "%s.umem%u", name, made + 1);
		rc = app_umem_reg(dev, uname, size, &q.umem[made].id);
		q.umem[made].size = (uint32_t)size;
		made += rc == 0;
	}
	if (rc == 0)
		rc = create(dev, name, in, dvshare_prm_virtq_create(in, &q), obj_id, status, syndrome);
	if (rc != 0) {
		/* Nothing of a queue that could not be made stays published. */
		for (unsigned int i = 1; i <= made; i++) {
			snprintf(uname, sizeof(uname), "%s.umem%u", name, i);
			dvshare_destroy(dev, uname, 1000);
		}
		if (counters_made)
			dvshare_destroy(dev, cname, 1000);
	}
	return rc;
}

int app_virtq_destroy(struct dvshare_dev *dev, const char *name, unsigned int timeout_ms)
{
	char uname[DVSHARE_NAME_MAX];
	int rc = dvshare_destroy(dev, name, timeout_ms);

	for (unsigned int i = 1; i <= 3 && rc == 0; i++) {
		snprintf(uname, sizeof(uname), "%s.umem%u", name, i);
		rc = dvshare_destroy(dev, uname, timeout_ms);
	}
	/* The counters exist only on a device that offers them. */
	snprintf(uname, sizeof(uname), "%s" APP_COUNTERS_SUFFIX, name);
	if (rc == 0 && published(dev, uname, NULL))
		rc = dvshare_destroy(dev, uname, timeout_ms);
	return rc;
}

int app_virtq_query(struct dvshare_obj *q, struct dvshare_prm_virtq *out)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], buf[DVSHARE_PRM_VIRTQ_SIZE];
	int rc = dvshare_obj_query(q, in, dvshare_prm_virtq_query(in, dvshare_obj_id(q)), buf,
				   sizeof(buf));

	if (rc == 0)
		dvshare_prm_virtq_parse(buf, out);
	return rc;
}

int app_virtq_modify(struct dvshare_obj *q, uint64_t select, const struct dvshare_prm_virtq *want,
		     uint8_t *status, uint32_t *syndrome)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE] = { 0 };
	size_t len = dvshare_prm_virtq_modify(in, dvshare_obj_id(q), select, want);
	int rc = dvshare_obj_modify(q, in, len, out, sizeof(out));

	if (status != NULL)
		*status = rc == -EREMOTEIO ? dvshare_prm_out_status(out) : 0;
	if (syndrome != NULL)
		*syndrome = rc == -EREMOTEIO ? dvshare_prm_out_syndrome(out) : 0;
	return rc;
}
