/* nvml_slow: PCIe throughput, which NVML measures by sampling a byte counter
 * for ~20 ms per call. It is read on a thread of its own every few seconds,
 * so the poll never waits for it. The thread owns n->slow_dev, under n->mu,
 * and touches nothing else of the backend. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvml_priv.h"
#include "util/clock.h"
#include "util/xalloc.h"

/* Rebuilds slow_dev from the devices. It is called with mu held and the
 * thread kept out. */
static void sync_devices(struct nvml *n)
{
	struct nvml_slow_dev *sd = xcalloc(n->ndev ? n->ndev : 1, sizeof(*sd));

	for (size_t i = 0; i < n->ndev; i++) {
		sd[i].h = n->dev[i].h;
		sd[i].skip = n->dev[i].lost;
		/* Keep what is known of a device that stayed where it was. */
		if (i < n->nslow && n->slow_dev[i].h == sd[i].h && !sd[i].skip) {
			sd[i] = n->slow_dev[i];
			sd[i].skip = false;
		}
	}
	free(n->slow_dev);
	n->slow_dev = sd;
	n->nslow = n->ndev;
	n->gen++;
}

static void round_once(struct nvml *n)
{
	pthread_mutex_lock(&n->mu);
	while (n->hold && !n->stop)
		pthread_cond_wait(&n->cv, &n->mu);
	if (n->stop || !n->lib.get_pcie_throughput) {
		pthread_mutex_unlock(&n->mu);
		return;
	}
	n->busy = true;
	uint64_t gen = n->gen;
	size_t nd = n->nslow;
	nvmlDevice_t *hs = xcalloc(nd ? nd : 1, sizeof(*hs));
	for (size_t i = 0; i < nd; i++)
		hs[i] = n->slow_dev[i].skip || n->slow_dev[i].unsupported || n->slow_dev[i].gpm ? NULL : n->slow_dev[i].h;
	pthread_mutex_unlock(&n->mu);

	for (size_t i = 0; i < nd; i++) {
		unsigned tx = 0, rx = 0;
		if (!hs[i])
			continue;
		nvmlReturn_t rt = n->lib.get_pcie_throughput(hs[i], NVML_PCIE_UTIL_TX_BYTES, &tx);
		nvmlReturn_t rr = n->lib.get_pcie_throughput(hs[i], NVML_PCIE_UTIL_RX_BYTES, &rx);
		pthread_mutex_lock(&n->mu);
		if (gen == n->gen && i < n->nslow) {
			struct nvml_slow_dev *d = &n->slow_dev[i];
			d->have_tx = rt == NVML_SUCCESS;
			d->have_rx = rr == NVML_SUCCESS;
			d->tx = (uint64_t)tx * 1024u;
			d->rx = (uint64_t)rx * 1024u;
			d->unsupported = rt == NVML_ERROR_NOT_SUPPORTED && rr == NVML_ERROR_NOT_SUPPORTED;
		}
		pthread_mutex_unlock(&n->mu);
	}
	free(hs);
	pthread_mutex_lock(&n->mu);
	n->busy = false;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
}

/* The thread sleeps until a poll kicks it (nvml_slow_tick()), at most once
 * per NVML_SLOW_PERIOD_MS. A wake-up by a timer of its own would cost more
 * than its round on an idle machine, where the CPU must leave its idle
 * state for it; being woken by the polling thread, already running, costs
 * a small part of that. */
static void *slow_main(void *arg)
{
	struct nvml *n = arg;

	pthread_mutex_lock(&n->mu);
	while (!n->stop) {
		while (!n->stop && !n->kick)
			pthread_cond_wait(&n->cv, &n->mu);
		if (n->stop)
			break;
		n->kick = false;
		pthread_mutex_unlock(&n->mu);
		round_once(n);
		pthread_mutex_lock(&n->mu);
		n->slow_due_ns = clock_mono_ns() + NVML_SLOW_PERIOD_MS * UINT64_C(1000000);
	}
	pthread_mutex_unlock(&n->mu);
	return NULL;
}

void nvml_slow_start(struct nvml *n)
{
	sigset_t all, old;

	pthread_mutex_lock(&n->mu);
	sync_devices(n);
	pthread_mutex_unlock(&n->mu);
	round_once(n);
	n->kick = false;
	n->slow_due_ns = clock_mono_ns() + NVML_SLOW_PERIOD_MS * UINT64_C(1000000);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	n->slow_running = pthread_create(&n->slow, NULL, slow_main, n) == 0;
	if (n->slow_running)
		pthread_setname_np(n->slow, "gpur-pcie");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void nvml_slow_stop(struct nvml *n)
{
	if (!n->slow_running)
		return;
	pthread_mutex_lock(&n->mu);
	n->stop = true;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->slow, NULL);
	n->slow_running = false;
}

void nvml_slow_hold(struct nvml *n)
{
	pthread_mutex_lock(&n->mu);
	n->hold = true;
	while (n->busy)
		pthread_cond_wait(&n->cv, &n->mu);
	pthread_mutex_unlock(&n->mu);
}

void nvml_slow_release(struct nvml *n)
{
	pthread_mutex_lock(&n->mu);
	sync_devices(n);
	n->hold = false;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
}

void nvml_slow_skip(struct nvml *n, size_t i)
{
	pthread_mutex_lock(&n->mu);
	if (i < n->nslow)
		n->slow_dev[i].skip = true;
	pthread_mutex_unlock(&n->mu);
}

void nvml_slow_tick(struct nvml *n)
{
	pthread_mutex_lock(&n->mu);
	if (n->slow_running && !n->kick && !n->busy && clock_mono_ns() >= n->slow_due_ns) {
		n->kick = true;
		pthread_cond_broadcast(&n->cv);
	}
	pthread_mutex_unlock(&n->mu);
}

void nvml_slow_get(struct nvml *n, size_t i, struct gpu *g, bool by_gpm)
{
	pthread_mutex_lock(&n->mu);
	if (by_gpm && i < n->nslow)
		n->slow_dev[i].gpm = true;
	if (i < n->nslow && !n->slow_dev[i].skip && !n->slow_dev[i].gpm) {
		const struct nvml_slow_dev *d = &n->slow_dev[i];
		if (d->have_rx) {
			g->pcie_rx_bytes_per_s = d->rx;
			gpu_set(g, GPU_F_PCIE_RX);
		}
		if (d->have_tx) {
			g->pcie_tx_bytes_per_s = d->tx;
			gpu_set(g, GPU_F_PCIE_TX);
		}
	}
	pthread_mutex_unlock(&n->mu);
}
