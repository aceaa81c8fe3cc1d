/* SPDX-License-Identifier: BSD-3-Clause */
#include "caps.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <unistd.h>

#include "dvshare_prm.h"

namespace dvs {

namespace {

/* One QUERY_HCA_CAP into @out (DVSHARE_PRM_HCA_CAP_OUT_SIZE bytes). */
int query_cap(const struct dvs_glue *g, struct ibv_context *ctx, uint16_t type,
	      std::vector<uint8_t> *out, std::string *why)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE];

	out->assign(DVSHARE_PRM_HCA_CAP_OUT_SIZE, 0);
	dvshare_prm_query_hca_cap(in, type);
	int rc = g->devx_general_cmd(ctx, in, sizeof(in), out->data(), out->size());
	if (rc == 0)
		return 0;
	char buf[160];
	if (rc == EREMOTEIO)
		snprintf(buf, sizeof(buf), "QUERY_HCA_CAP(0x%x) failed: status %s, syndrome 0x%08x",
			 type, dvshare_prm_status_str(dvshare_prm_out_status(out->data())),
			 dvshare_prm_out_syndrome(out->data()));
	else
		snprintf(buf, sizeof(buf), "QUERY_HCA_CAP(0x%x) failed: %s", type, strerror(rc));
	*why = buf;
	return -rc;
}

} // namespace

int read_caps(const struct dvs_glue *g, struct ibv_context *ctx, DeviceCaps *caps,
	      std::string *why)
{
	std::vector<uint8_t> out;
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;

	*caps = {};
	int rc = query_cap(g, ctx, DVSHARE_PRM_CAP_GENERAL, &out, why);
	if (rc != 0)
		return rc;
	dvshare_prm_hca_caps_parse(out.data(), &gen);
	if (!dvshare_prm_hca_has_obj(&gen, DVSHARE_PRM_OBJ_VIRTIO_NET_Q))
		return 0;
	rc = query_cap(g, ctx, DVSHARE_PRM_CAP_VIRTIO_EMULATION, &out, why);
	if (rc != 0)
		return rc;
	dvshare_prm_virtio_caps_parse(out.data(), &vio);
	const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
	caps->virtio_net_q = true;
	caps->vio = vio;
	caps->db_offset = static_cast<uint32_t>(vio.doorbell_bar_offset & (page - 1));
	return 0;
}

} // namespace dvs
