/* SPDX-License-Identifier: BSD-3-Clause */
/* Fill the glue table from libibverbs.so.1 / libmlx5.so.1 with dlsym(),
 * from the copies the process already has when it has them. */
#include "dvs_mlx5_glue.h"
#include "dvs_config.h" /* DVS_RDMA_LIBDIR */

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_log.h>

namespace {

void set_err(char *err, size_t errlen, const std::string &msg)
{
	if (err != nullptr && errlen > 0)
		snprintf(err, errlen, "%s", msg.c_str());
}

/* @path with every symlink resolved, or @path itself if it cannot be. */
std::string real_path(const char *path)
{
	char *r = realpath(path, nullptr);
	std::string s = r != nullptr ? r : path;

	free(r);
	return s;
}

/* Resolves symbols of one library into table slots, remembering the
 * names it could not find. */
class Resolver {
public:
	explicit Resolver(void *handle) : handle_(handle) {}

	template <typename Fn> bool get(const char *name, Fn &slot)
	{
		slot = reinterpret_cast<Fn>(dlsym(handle_, name));
		if (slot != nullptr)
			return true;
		if (!missing_.empty())
			missing_ += ' ';
		missing_ += name;
		return false;
	}

	const std::string &missing() const { return missing_; }

private:
	void *handle_;
	std::string missing_;
};

/* Not an rdma-core call: the mmap of a cmd_fd that reaches a VAR page. */
void *mmap_cmd(struct ibv_context *ctx, void *addr, size_t length, int prot, int flags,
	       off_t offset)
{
	void *p = mmap(addr, length, prot, flags, ctx->cmd_fd, offset);

	return p == MAP_FAILED ? nullptr : p;
}

/* The table slot must have the very type of rdma-core's prototype. */
#define DVS_RESOLVE(res, g, field, fn)                                            \
	do {                                                                      \
		static_assert(std::is_same_v<decltype((g).field), decltype(&fn)>, \
			      #field " does not match " #fn);                     \
		(res).get(#fn, (g).field);                                        \
	} while (0)

void resolve_core(Resolver &verbs, Resolver &mlx5, struct dvs_glue &g)
{
	DVS_RESOLVE(verbs, g, get_device_list, ibv_get_device_list);
	DVS_RESOLVE(verbs, g, free_device_list, ibv_free_device_list);
	DVS_RESOLVE(verbs, g, get_device_name, ibv_get_device_name);
	DVS_RESOLVE(verbs, g, import_device, ibv_import_device);
	DVS_RESOLVE(verbs, g, close_device, ibv_close_device);
	DVS_RESOLVE(mlx5, g, dv_open_device, mlx5dv_open_device);
	DVS_RESOLVE(mlx5, g, alloc_var, mlx5dv_alloc_var);
	DVS_RESOLVE(mlx5, g, free_var, mlx5dv_free_var);
	DVS_RESOLVE(mlx5, g, devx_obj_create, mlx5dv_devx_obj_create);
	DVS_RESOLVE(mlx5, g, devx_obj_query, mlx5dv_devx_obj_query);
	DVS_RESOLVE(mlx5, g, devx_obj_modify, mlx5dv_devx_obj_modify);
	DVS_RESOLVE(mlx5, g, devx_obj_destroy, mlx5dv_devx_obj_destroy);
	DVS_RESOLVE(mlx5, g, devx_umem_reg, mlx5dv_devx_umem_reg);
	DVS_RESOLVE(mlx5, g, devx_umem_dereg, mlx5dv_devx_umem_dereg);
	DVS_RESOLVE(mlx5, g, devx_general_cmd, mlx5dv_devx_general_cmd);
	g.mmap_cmd = mmap_cmd;
}

/* rdma-core >= 63 (symbol version MLX5_1.27). */
void resolve_export(Resolver &mlx5, struct dvs_glue &g)
{
	DVS_RESOLVE(mlx5, g, get_export_sizes, _mlx5dv_get_export_sizes);
	DVS_RESOLVE(mlx5, g, var_export, mlx5dv_var_export);
	DVS_RESOLVE(mlx5, g, var_import, mlx5dv_var_import);
	DVS_RESOLVE(mlx5, g, var_unimport, mlx5dv_var_unimport);
	DVS_RESOLVE(mlx5, g, devx_obj_export, mlx5dv_devx_obj_export);
	DVS_RESOLVE(mlx5, g, devx_obj_import, mlx5dv_devx_obj_import);
	DVS_RESOLVE(mlx5, g, devx_obj_unimport, mlx5dv_devx_obj_unimport);
	DVS_RESOLVE(mlx5, g, devx_umem_export, mlx5dv_devx_umem_export);
	DVS_RESOLVE(mlx5, g, devx_umem_import, mlx5dv_devx_umem_import);
	DVS_RESOLVE(mlx5, g, devx_umem_unimport, mlx5dv_devx_umem_unimport);
}

/* The file behind a loaded library, symlinks resolved ("" if unknown). */
std::string file_of(void *handle)
{
	struct link_map *lm = nullptr;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr || lm->l_name == nullptr)
		return "";
	return real_path(lm->l_name);
}

/* rdma-core names its libraries lib<name>.so.<abi>.<minor>.<release>, as
 * libmlx5.so.1.24.44.0 for rdma-core 44.0: the release, or "". */
std::string release_of(const std::string &file)
{
	size_t so = file.rfind(".so.");
	if (so == std::string::npos)
		return "";
	std::string v = file.substr(so + 4);
	size_t dot1 = v.find('.'), dot2 = dot1 == std::string::npos ? dot1 : v.find('.', dot1 + 1);
	return dot2 == std::string::npos ? "" : v.substr(dot2 + 1);
}

/* "<file>, rdma-core <release>[, already loaded in this process]". */
std::string describe(const std::string &file, bool preloaded)
{
	std::string rel = release_of(file);

	return file + (rel.empty() ? "" : ", rdma-core " + rel) +
	       (preloaded ? ", already loaded in this process" : "");
}

/* The rdma-core dvshare was configured against: @soname in its libdir,
 * when that file is there; else the soname (the loader's search). A build
 * against rdma-core 64 in a prefix then loads 64, not the system's 44 that
 * the default search would find first. */
std::string configured(const char *soname)
{
#ifdef DVS_RDMA_LIBDIR
	std::string f = std::string(DVS_RDMA_LIBDIR) + "/" + soname;
	if (access(f.c_str(), R_OK) == 0)
		return f;
#endif
	return soname;
}

/* What to load for one library. A process runs one rdma-core: if it
 * already has this library (DPDK's mlx5 drivers link libibverbs and
 * libmlx5), that copy, and an environment variable naming another file is
 * refused; else the file @env names, else the configured rdma-core's. */
int choose(const char *env, const char *soname, std::string *path, bool *preloaded,
	   std::string *why)
{
	const char *want = getenv(env);
	void *h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);

	*preloaded = h != nullptr;
	if (h == nullptr) {
		*path = want != nullptr && want[0] != '\0' ? want : configured(soname);
		return 0;
	}
	*path = file_of(h);
	dlclose(h);
	if (want != nullptr && want[0] != '\0' && real_path(want) != *path) {
		*why = std::string(env) + "=" + want + " would load a second rdma-core beside " +
		       describe(*path, true) + " (DPDK's mlx5 drivers load it): unset " + env +
		       ", or run the DPDK built against the rdma-core you want (doc/using.md)";
		return -EEXIST;
	}
	return 0;
}

void *load(const char *path, std::string *why)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == nullptr) {
		const char *e = dlerror();
		*why = std::string("cannot load ") + path + ": " + (e ? e : "unknown error");
	}
	return h;
}

/* dvs_mlx5_glue()'s loading, once per process. */
int load_process_glue(struct dvs_mlx5_glue *out, char *err, size_t errlen)
{
	std::string verbs, mlx5, why;
	bool verbs_pre = false, mlx5_pre = false;
	int rc = choose("DVSHARE_LIBIBVERBS", DVS_MLX5_VERBS_LIB, &verbs, &verbs_pre, &why);

	if (rc == 0)
		rc = choose("DVSHARE_LIBMLX5", DVS_MLX5_MLX5_LIB, &mlx5, &mlx5_pre, &why);
	if (rc != 0) {
		set_err(err, errlen, why);
		return rc;
	}
	rc = dvs_mlx5_glue_open(out, verbs.c_str(), mlx5.c_str(), err, errlen);
	if (rc != 0)
		return rc;
	/* The whole provider is described by libmlx5 (same release as its
	 * libibverbs, whose private symbols it needs). */
	snprintf(out->glue.origin, sizeof(out->glue.origin), "%s",
		 describe(file_of(out->mlx5_handle), mlx5_pre).c_str());
	if (out->glue.missing[0] != '\0')
		rte_log(RTE_LOG_WARNING, rte_log_register("lib.dvshare"),
			"dvshare: %s lacks rdma-core 63's export/import API: mlx5 devices "
			"cannot be shared (rdma-core >= 63 is needed, doc/using.md)\n",
			out->glue.origin);
	return 0;
}

} // namespace

extern "C" int dvs_mlx5_glue_open(struct dvs_mlx5_glue *out, const char *verbs_path,
				  const char *mlx5_path, char *err, size_t errlen)
{
	std::string why;

	*out = {};
	out->verbs_handle = load(verbs_path, &why);
	if (out->verbs_handle != nullptr)
		out->mlx5_handle = load(mlx5_path, &why);
	if (out->mlx5_handle == nullptr) {
		dvs_mlx5_glue_close(out);
		set_err(err, errlen, why + " (is rdma-core installed? Debian: ibverbs-providers)");
		return -ENOENT;
	}
	Resolver verbs(out->verbs_handle), mlx5(out->mlx5_handle);
	struct dvs_glue &g = out->glue;
	resolve_core(verbs, mlx5, g);
	std::string core = verbs.missing();
	if (!mlx5.missing().empty())
		core += (core.empty() ? "" : " ") + mlx5.missing();
	if (!core.empty()) {
		dvs_mlx5_glue_close(out);
		set_err(err, errlen, "rdma-core lacks required symbols: " + core);
		return -ENOTSUP;
	}
	Resolver v63(out->mlx5_handle);
	resolve_export(v63, g);
	snprintf(g.missing, sizeof(g.missing), "%s", v63.missing().c_str());
	snprintf(g.origin, sizeof(g.origin), "%s", describe(file_of(out->mlx5_handle), false).c_str());
	g.provider = "mlx5";
	return 0;
}

extern "C" void dvs_mlx5_glue_close(struct dvs_mlx5_glue *g)
{
	if (g->mlx5_handle != nullptr)
		dlclose(g->mlx5_handle);
	if (g->verbs_handle != nullptr)
		dlclose(g->verbs_handle);
	*g = {};
}

extern "C" const struct dvs_glue *dvs_mlx5_glue(char *err, size_t errlen)
{
	static std::once_flag once;
	static struct dvs_mlx5_glue loaded;
	static int rc;
	static char why[DVS_GLUE_ERR_MAX];

	std::call_once(once, [] { rc = load_process_glue(&loaded, why, sizeof(why)); });
	if (rc != 0) {
		set_err(err, errlen, why);
		errno = -rc;
		return nullptr;
	}
	return &loaded.glue;
}
