/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: the driver side of a split ring (app/common/app_vring.h),
 * against a device played here: layout and alignment (virtio 1.1 2.6),
 * posting and taking back, the free list, a full ring, the 16-bit
 * indexes wrapping, the notification flag, and used entries a device gets
 * wrong.
 */
#include <stdlib.h>

#include "app_vring.h"
#include "dvs_cunit.h"

static void *ring_mem(uint16_t size, void **meta)
{
	void *m = NULL;

	*meta = NULL;

	if (posix_memalign(&m, APP_VRING_ALIGN, app_vring_bytes(size)) != 0)
		return NULL;
	*meta = malloc(app_vring_meta_bytes(size));
	return m;
}

/* The device's side: take @n avail entries from @*seen and return them
 * used, in order, with @len each. */
static void device_return(struct app_vring *r, uint16_t *seen, unsigned int n, uint32_t len)
{
	uint16_t used = r->used->idx;

	for (unsigned int i = 0; i < n; i++, (*seen)++, used++) {
		uint16_t head = r->avail->ring[*seen & r->mask];
		r->used->ring[used & r->mask].id = head;
		r->used->ring[used & r->mask].len = len;
	}
	r->used->idx = used;
}

static void test_layout(void)
{
	struct app_vring r = { 0 };
	void *meta = NULL, *m = ring_mem(256, &meta);

	CU_ASSERT_EQUAL(app_vring_avail_off(256), 4096u);
	CU_ASSERT_EQUAL(app_vring_used_off(256) % 64, 0u);
	CU_ASSERT(app_vring_used_off(256) >= 4096u + 6 + 512);
	CU_ASSERT(app_vring_bytes(256) >= app_vring_used_off(256) + 6 + 8 * 256);
	CU_ASSERT_EQUAL(app_vring_init(&r, m, 256, meta), 0);
	CU_ASSERT_EQUAL((uintptr_t)r.desc % 16, 0u);
	CU_ASSERT_EQUAL((uintptr_t)r.avail % 2, 0u);
	CU_ASSERT_EQUAL((uintptr_t)r.used % 4, 0u);
	CU_ASSERT_EQUAL(r.num_free, 256);
	CU_ASSERT_EQUAL(app_vring_in_flight(&r), 0);
	/* Sizes a split ring cannot have, memory the device cannot take. */
	CU_ASSERT_EQUAL(app_vring_init(&r, m, 100, meta), -EINVAL);
	CU_ASSERT_EQUAL(app_vring_init(&r, m, 1, meta), -EINVAL);
	CU_ASSERT_EQUAL(app_vring_init(&r, (uint8_t *)m + 8, 64, meta), -EINVAL);
	CU_ASSERT_EQUAL(app_vring_init(&r, m, 64, NULL), -EINVAL);
	free(m);
	free(meta);
}

static void test_post_and_take(void)
{
	struct app_vring r = { 0 };
	void *meta = NULL, *m = ring_mem(8, &meta);
	void *cookies[8];
	uint32_t lens[8];
	uint16_t seen = 0;
	int tags[9];

	CU_ASSERT_EQUAL_FATAL(app_vring_init(&r, m, 8, meta), 0);
	for (int i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(app_vring_add(&r, 0x1000u * (unsigned int)i, 100, i % 2, &tags[i]), 0);
	CU_ASSERT_EQUAL(app_vring_add(&r, 0, 1, 0, &tags[8]), -ENOSPC);
	CU_ASSERT_EQUAL(r.avail->idx, 0); /* not published yet */
	app_vring_publish(&r);
	CU_ASSERT_EQUAL(r.avail->idx, 8);
	CU_ASSERT_EQUAL(r.desc[r.avail->ring[3]].addr, 0x3000u);
	CU_ASSERT_EQUAL(r.desc[r.avail->ring[3]].flags, VRING_DESC_F_WRITE);
	CU_ASSERT_EQUAL(r.desc[r.avail->ring[2]].flags, 0);
	CU_ASSERT_EQUAL(app_vring_in_flight(&r), 8);
	/* The device returns 5 out of the 8: taken in order, lengths kept. */
	device_return(&r, &seen, 5, 42);
	CU_ASSERT_EQUAL(app_vring_used_ready(&r), 5);
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, lens, 3), 3);
	CU_ASSERT_PTR_EQUAL(cookies[0], &tags[0]);
	CU_ASSERT_PTR_EQUAL(cookies[2], &tags[2]);
	CU_ASSERT_EQUAL(lens[1], 42u);
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), 2);
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), 0);
	CU_ASSERT_EQUAL(app_vring_in_flight(&r), 3);
	/* The freed descriptors are posted again. */
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(app_vring_add(&r, 0, 1, 0, &tags[i]), 0);
	CU_ASSERT_EQUAL(app_vring_add(&r, 0, 1, 0, &tags[8]), -ENOSPC);
	free(m);
	free(meta);
}

/* Past 65535 posts the indexes wrap; differences stay right. */
static void test_index_wrap(void)
{
	struct app_vring r = { 0 };
	void *meta = NULL, *m = ring_mem(4, &meta);
	void *cookies[4];
	uint16_t seen = 0;
	int tag, bad = 0;
	uint32_t total = 0;

	CU_ASSERT_EQUAL_FATAL(app_vring_init(&r, m, 4, meta), 0);
	for (uint32_t round = 0; round < 70000 / 3; round++) {
		for (int i = 0; i < 3; i++)
			bad += app_vring_add(&r, round, 1, 0, &tag) != 0;
		app_vring_publish(&r);
		device_return(&r, &seen, 3, 0);
		bad += app_vring_used_ready(&r) != 3;
		bad += app_vring_reap(&r, cookies, NULL, 4) != 3;
		total += 3;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(total > 65536);
	CU_ASSERT_EQUAL(r.avail->idx, (uint16_t)total);
	CU_ASSERT_EQUAL(r.used_idx, (uint16_t)total);
	CU_ASSERT_EQUAL(app_vring_in_flight(&r), 0);
	free(m);
	free(meta);
}

/* A kick only when the device does not say it polls. */
static void test_want_kick(void)
{
	struct app_vring r = { 0 };
	void *meta = NULL, *m = ring_mem(8, &meta);

	CU_ASSERT_EQUAL_FATAL(app_vring_init(&r, m, 8, meta), 0);
	CU_ASSERT_TRUE(app_vring_want_kick(&r));
	r.used->flags = VRING_USED_F_NO_NOTIFY;
	CU_ASSERT_FALSE(app_vring_want_kick(&r));
	free(m);
	free(meta);
}

/* A device that lies in its used ring: an id past the ring, one not in
 * flight, an index claiming more than the ring: nothing is taken. */
static void test_bad_used(void)
{
	struct app_vring r = { 0 };
	void *meta = NULL, *m = ring_mem(8, &meta);
	void *cookies[8];
	int tag;

	CU_ASSERT_EQUAL_FATAL(app_vring_init(&r, m, 8, meta), 0);
	CU_ASSERT_EQUAL(app_vring_add(&r, 0, 1, 0, &tag), 0);
	app_vring_publish(&r);
	r.used->ring[0].id = 8;
	r.used->idx = 1;
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), -EIO);
	r.used->ring[0].id = 5; /* free, not in flight */
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), -EIO);
	r.used->idx = 9;
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), -EIO);
	r.used->ring[0].id = 0;
	r.used->idx = 1;
	CU_ASSERT_EQUAL(app_vring_reap(&r, cookies, NULL, 8), 1);
	CU_ASSERT_EQUAL(r.num_free, 8);
	free(m);
	free(meta);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_layout),
	DVS_TEST(test_post_and_take),
	DVS_TEST(test_index_wrap),
	DVS_TEST(test_want_kick),
	DVS_TEST(test_bad_used),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("app_vring", cases);
}

DVS_CUNIT_MAIN("test_app_vring", register_tests)
