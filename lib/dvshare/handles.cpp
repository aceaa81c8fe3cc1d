/* SPDX-License-Identifier: BSD-3-Clause */
/* Handle teardown: owners destroy the kernel object, importers unimport. */
#include "handles.h"

#include "device.h"
#include "dvs_log.h"

dvshare_var::~dvshare_var()
{
	const struct dvs_glue *g = dev->glue();

	page.reset();
	if (dv == nullptr)
		return;
	if (owner)
		g->free_var(dv);
	else
		g->var_unimport(dv);
}

dvshare_obj::~dvshare_obj()
{
	const struct dvs_glue *g = dev->glue();

	if (dv == nullptr)
		return;
	if (owner) {
		int rc = g->devx_obj_destroy(dv);
		if (rc == 0)
			return;
		/* The object is gone or busy; the local struct is still ours. */
		DVS_LOG(WARNING, "%s: destroy of DEVX object %s failed: %s",
			dev->name().c_str(), name, strerror(rc));
	}
	g->devx_obj_unimport(dv);
}

dvshare_umem::~dvshare_umem()
{
	const struct dvs_glue *g = dev->glue();

	if (dv == nullptr)
		return;
	if (owner) {
		int rc = g->devx_umem_dereg(dv);
		if (rc == 0)
			return;
		DVS_LOG(WARNING, "%s: dereg of UMEM %s failed: %s", dev->name().c_str(), name,
			strerror(rc));
	}
	g->devx_umem_unimport(dv);
}
