/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: the choices app/common makes from a device's caps before it
 * sends anything, on caps no software device reports: the event mode of
 * a queue (NO_MSIX when offered, as DPDK's vdpa/mlx5 picks for a polled
 * queue; refused otherwise).
 */
#include <errno.h>
#include <string.h>

#include "app_objects.h"
#include "dvs_cunit.h"

static void test_event_mode_from_caps(void)
{
	struct dvshare_prm_virtio_caps vio;

	memset(&vio, 0, sizeof(vio));
	vio.event_modes = 1u << DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX;
	CU_ASSERT_EQUAL(app_virtq_event_mode(&vio), DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX);
	vio.event_modes |= 1u << DVSHARE_PRM_VIRTQ_EVENT_QP | 1u << DVSHARE_PRM_VIRTQ_EVENT_MSIX;
	CU_ASSERT_EQUAL(app_virtq_event_mode(&vio), DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX);
	/* QP only (a device without polled queues): QP mode needs an event
	 * QP and CQ, which the helpers do not build. */
	vio.event_modes = 1u << DVSHARE_PRM_VIRTQ_EVENT_QP;
	CU_ASSERT_EQUAL(app_virtq_event_mode(&vio), -EOPNOTSUPP);
	vio.event_modes = 0;
	CU_ASSERT_EQUAL(app_virtq_event_mode(&vio), -EOPNOTSUPP);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_event_mode_from_caps),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("app_objects", cases);
}

DVS_CUNIT_MAIN("test_app_objects", register_tests)
