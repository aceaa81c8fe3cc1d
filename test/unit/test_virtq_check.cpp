/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: virtq_check.cpp, what dvshare_obj_create() refuses of a
 * VIRTIO_NET_Q create before it reaches the device, each refusal naming
 * the field and the limit; caps of a made-up NIC, not the sim's.
 */
#include <cerrno>
#include <cstring>
#include <string>

#include "dvs_cunit.h"
#include "virtq_check.h"

namespace {

struct dvshare_prm_virtio_caps nic_caps()
{
	struct dvshare_prm_virtio_caps c;

	memset(&c, 0, sizeof(c));
	c.virtio_version_1_0 = 1;
	c.event_modes = 1u << DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX | 1u << DVSHARE_PRM_VIRTQ_EVENT_QP;
	c.queue_types = 1u << DVSHARE_PRM_VIRTQ_TYPE_SPLIT | 1u << DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	c.max_num_virtio_queues = 64;
	for (unsigned int i = 0; i < 3; i++) {
		c.umem[i].a = 64u << i;
		c.umem[i].b = 1000;
	}
	return c;
}

struct dvshare_prm_virtq good_queue(const struct dvshare_prm_virtio_caps &c)
{
	struct dvshare_prm_virtq q;

	memset(&q, 0, sizeof(q));
	q.queue_index = 63;
	q.queue_size = 256;
	q.virtio_version_1_0 = 1;
	for (unsigned int i = 0; i < 3; i++)
		q.umem[i].size = static_cast<uint32_t>(dvshare_prm_virtq_umem_size(&c, i, 256));
	return q;
}

/* The refusal of @q, or "" when it passes. */
std::string why_refused(const struct dvshare_prm_virtio_caps &c, const struct dvshare_prm_virtq &q,
			size_t inlen = DVSHARE_PRM_VIRTQ_SIZE)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	std::string why;

	dvshare_prm_virtq_create(in, &q);
	int rc = dvs::virtq_create_check(c, in, inlen, &why);
	CU_ASSERT_EQUAL(rc, why.empty() ? 0 : -EINVAL);
	return why;
}

bool says(const std::string &why, const char *text)
{
	bool ok = why.find(text) != std::string::npos;
	if (!ok)
		fprintf(stderr, "refusal \"%s\" lacks \"%s\"\n", why.c_str(), text);
	return ok;
}

void test_good_queues_pass()
{
	auto c = nic_caps();
	auto q = good_queue(c);

	CU_ASSERT_EQUAL(why_refused(c, q), "");
	q.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	q.queue_size = 1000; /* a packed ring's size need not be a power of two */
	for (unsigned int i = 0; i < 3; i++)
		q.umem[i].size = static_cast<uint32_t>(dvshare_prm_virtq_umem_size(&c, i, 1000));
	q.event_mode = DVSHARE_PRM_VIRTQ_EVENT_QP;
	CU_ASSERT_EQUAL(why_refused(c, q), "");
	/* Too short a command is the device's to refuse. */
	q.queue_index = 64;
	CU_ASSERT_EQUAL(why_refused(c, q, DVSHARE_PRM_VIRTQ_SIZE - 1), "");
}

void test_each_field_named()
{
	auto c = nic_caps();
	auto good = good_queue(c);
	auto q = good;

	q.queue_index = 64;
	CU_ASSERT(says(why_refused(c, q), "queue_index 64: the device has 64 queues "
					  "(max_num_virtio_queues)"));
	q = good;
	q.queue_size = 100;
	CU_ASSERT(says(why_refused(c, q), "queue_size 100: a virtio queue holds 1 to 32768 entries, "
					  "a split one a power of two"));
	q.queue_size = 0;
	CU_ASSERT(says(why_refused(c, q), "queue_size 0:"));
	q.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	q.queue_size = 65535;
	CU_ASSERT(says(why_refused(c, q), "queue_size 65535:"));
	q = good;
	q.event_mode = DVSHARE_PRM_VIRTQ_EVENT_MSIX;
	CU_ASSERT(says(why_refused(c, q), "event_mode 2: the device offers the modes of mask 0x3"));
	q = good;
	c.queue_types = 1u << DVSHARE_PRM_VIRTQ_TYPE_SPLIT;
	q.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	CU_ASSERT(says(why_refused(c, q), "virtio_q_type 1: the device offers the types of mask 0x1"));
	c = nic_caps();
	c.virtio_version_1_0 = 0;
	CU_ASSERT(says(why_refused(c, good), "virtio_version_1_0: the device does not offer it"));
	c = nic_caps();
	for (unsigned int i = 0; i < 3; i++) {
		char want[96];
		q = good;
		q.umem[i].size--;
		snprintf(want, sizeof(want), "umem_%u_size %u: 256 entries need %u bytes", i + 1,
			 q.umem[i].size, q.umem[i].size + 1);
		CU_ASSERT(says(why_refused(c, q), want));
	}
}

const struct dvs_test_case cases[] = {
	DVS_TEST(test_good_queues_pass),
	DVS_TEST(test_each_field_named),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("virtq_check", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_virtq_check", register_tests)
