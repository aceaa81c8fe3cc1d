/* SPDX-License-Identifier: BSD-3-Clause */
#include "virtq_check.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace dvs {

namespace {

/* The largest queue the virtio spec allows (1.1, 2.6 and 2.7: "The
 * maximum Queue Size value is 32768"). */
constexpr uint32_t kVirtioMaxQueueSize = 32768;

int refuse(std::string *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int refuse(std::string *why, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*why = buf;
	return -EINVAL;
}

bool pow2(uint32_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

} // namespace

int virtq_create_check(const struct dvshare_prm_virtio_caps &caps, const void *in, size_t inlen,
		       std::string *why)
{
	struct dvshare_prm_virtq q;

	if (inlen < DVSHARE_PRM_VIRTQ_SIZE)
		return 0;
	dvshare_prm_virtq_parse(in, &q);
	if (q.queue_index >= caps.max_num_virtio_queues)
		return refuse(why, "queue_index %u: the device has %u queues (max_num_virtio_queues)",
			      q.queue_index, caps.max_num_virtio_queues);
	if (q.virtio_q_type >= 8 || ((caps.queue_types >> q.virtio_q_type) & 1) == 0)
		return refuse(why, "virtio_q_type %u: the device offers the types of mask 0x%x "
				   "(virtio_queue_type; bit 0 split, 1 packed)",
			      q.virtio_q_type, caps.queue_types);
	if (((caps.event_modes >> q.event_mode) & 1) == 0)
		return refuse(why, "event_mode %u: the device offers the modes of mask 0x%x "
				   "(event_mode; bit 0 NO_MSIX, 1 QP, 2 MSIX)",
			      q.event_mode, caps.event_modes);
	if (q.virtio_version_1_0 && !caps.virtio_version_1_0)
		return refuse(why, "virtio_version_1_0: the device does not offer it");
	if (q.queue_size == 0 || q.queue_size > kVirtioMaxQueueSize ||
	    (q.virtio_q_type == DVSHARE_PRM_VIRTQ_TYPE_SPLIT && !pow2(q.queue_size)))
		return refuse(why, "queue_size %u: a virtio queue holds 1 to 32768 entries, a split "
				   "one a power of two (virtio 1.1, 2.6 and 2.7)",
			      q.queue_size);
	for (unsigned int i = 0; i < 3; i++) {
		uint64_t need = dvshare_prm_virtq_umem_size(&caps, i, q.queue_size);
		if (q.umem[i].size < need)
			return refuse(why, "umem_%u_size %u: %u entries need %llu bytes "
					   "(umem_%u_buffer_param_a * queue_size + _b)",
				      i + 1, q.umem[i].size, q.queue_size,
				      static_cast<unsigned long long>(need), i + 1);
	}
	return 0;
}

} // namespace dvs
