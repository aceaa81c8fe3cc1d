/* SPDX-License-Identifier: BSD-3-Clause */
#include "peers.h"

#include "dvs_log.h"
#include "goodbye.h"
#include "library.h"

namespace dvs {

/* Never destroyed: the library's exit-time code (Library::~Library, which
 * outlives every other dvshare static) still says goodbye through it. */
std::string pid_list(const std::set<pid_t> &pids)
{
	std::string s;

	for (pid_t p : pids)
		s += (s.empty() ? "" : " ") + std::to_string(p);
	return s;
}

Peers &Peers::get()
{
	static Peers *p = new Peers;
	return *p;
}

void Peers::attached(pid_t pid, uid_t uid, const std::vector<std::string> &devs, Fd bye,
		     bool *fresh)
{
	std::lock_guard<std::mutex> lock(mu_);

	std::erase_if(spent_, [](const std::unique_ptr<PidWatch> &w) { return w->spent(); });
	auto it = peers_.find(pid);
	*fresh = it == peers_.end();
	if (!*fresh) {
		/* Already known: another device for it. */
		it->second.devices.insert(devs.begin(), devs.end());
		return;
	}
	Peer &p = peers_[pid];
	p.uid = uid;
	p.bye = std::move(bye);
	p.devices.insert(devs.begin(), devs.end());
}

void Peers::watch(pid_t pid, Fd pidfd)
{
	int err = 0;
	std::unique_ptr<PidWatch> w = PidWatch::start(std::move(pidfd), [this, pid] { gone(pid); }, &err);

	if (w == nullptr) {
		/* Destroys still end: a peer that does not answer times out. */
		DVS_LOG(ERR, "cannot watch secondary pid %d: %s; its death will not be noticed",
			pid, strerror(-err));
		return;
	}
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);
	if (it != peers_.end() && it->second.watch == nullptr)
		it->second.watch = std::move(w);
	else
		spent_.push_back(std::move(w)); /* gone already: freed later */
}

void Peers::detached(pid_t pid, const std::string &dev)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	if (it != peers_.end())
		it->second.devices.erase(dev);
}

std::set<pid_t> Peers::attached_to(const std::string &dev)
{
	std::lock_guard<std::mutex> lock(mu_);
	std::set<pid_t> out;

	for (const auto &[pid, p] : peers_)
		if (p.devices.count(dev) != 0)
			out.insert(pid);
	return out;
}

std::vector<PeerInfo> Peers::list()
{
	std::lock_guard<std::mutex> lock(mu_);
	std::vector<PeerInfo> out;

	for (const auto &[pid, p] : peers_)
		out.push_back({ pid, p.uid, { p.devices.begin(), p.devices.end() } });
	return out;
}

void Peers::say_bye()
{
	std::lock_guard<std::mutex> lock(mu_);

	for (const auto &[pid, p] : peers_)
		bye_send(p.bye.get());
}

/* On the interrupt thread: the peer's pidfd fired. Either way what it
 * held is reclaimed; a goodbye decides what it is called. */
void Peers::gone(pid_t pid)
{
	std::set<std::string> devs;
	bool clean;
	{
		std::lock_guard<std::mutex> lock(mu_);
		auto it = peers_.find(pid);
		if (it == peers_.end())
			return;
		devs = std::move(it->second.devices);
		clean = bye_heard(it->second.bye.get(), pid);
		/* A peer that died before watch() stored its watch has none
		 * yet: watch() finds it gone and parks the watch itself. */
		if (it->second.watch != nullptr)
			spent_.push_back(std::move(it->second.watch));
		peers_.erase(it);
	}
	if (!devs.empty() && clean)
		DVS_LOG(INFO, "secondary pid %d exited: detached from %zu device(s)", pid,
			devs.size());
	else if (!devs.empty())
		DVS_LOG(NOTICE, "secondary pid %d died attached to %zu device(s): reclaimed", pid,
			devs.size());
	Library &lib = Library::get();
	for (const std::string &d : devs) {
		lib.peer_gone(d.c_str(), pid);
		lib.emit(d.c_str(), clean ? DVSHARE_EVENT_PEER_DETACHED : DVSHARE_EVENT_PEER_DIED,
			 nullptr, pid, true);
	}
}

} // namespace dvs
