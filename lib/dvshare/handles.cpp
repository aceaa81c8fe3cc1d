/* SPDX-License-Identifier: BSD-3-Clause */
/* Handle teardown: owners destroy the kernel object, importers unimport. */
#include "handles.h"

#include <cstring>

#include "device.h"
#include "dvs_log.h"

namespace {

/* Destroy what we own; when that fails (the object is gone or busy) the
 * local struct is still ours and is unimported, as rdma-core expects. */
template <typename T>
void put_dv(const dvs::Handle &h, T *dv, int (*destroy)(T *), void (*unimport)(T *),
	    const char *what)
{
	if (dv == nullptr)
		return;
	if (h.owner) {
		int rc = destroy(dv);
		if (rc == 0)
			return;
		DVS_LOG(WARNING, "%s: destroy of %s %s failed: %s", h.dev->name().c_str(), what,
			h.name, strerror(rc));
	}
	unimport(dv);
}

} // namespace

const char *dvs::type_str(uint32_t type)
{
	switch (type) {
	case DVSHARE_TYPE_VAR: return "VAR";
	case DVSHARE_TYPE_OBJ: return "DEVX object";
	case DVSHARE_TYPE_UMEM: return "UMEM";
	default: return "object";
	}
}

dvshare_var::~dvshare_var()
{
	const struct dvs_glue *g = dev->glue();

	page.reset();
	if (dv == nullptr)
		return;
	if (owner)
		g->free_var(dv); /* cannot fail: it frees the local struct too */
	else
		g->var_unimport(dv);
}

dvshare_obj::~dvshare_obj()
{
	const struct dvs_glue *g = dev->glue();

	put_dv(*this, dv, g->devx_obj_destroy, g->devx_obj_unimport, "DEVX object");
}

dvshare_umem::~dvshare_umem()
{
	const struct dvs_glue *g = dev->glue();

	put_dv(*this, dv, g->devx_umem_dereg, g->devx_umem_unimport, "UMEM");
}
