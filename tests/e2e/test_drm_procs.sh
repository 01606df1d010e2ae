# test_drm_procs: process rows of the DRM backends from fdinfo (fixture
# processes with real fd symlinks to /dev/dri/renderD*): memory from the
# descriptor's region (resident VRAM, else total), one row per process and
# GPU, the first sample's utilisation unknown, never 0.
# NEEDS THE REAL FDINFO ENGINE: the placeholder in src/drm/fdinfo.c finds no
# client, so tests/CMakeLists.txt marks this test DISABLED until it is merged.
. "$(dirname "$0")/lib.sh" || exit 1
. "$(dirname "$0")/nvml_lib.sh" || exit 1
. "$(dirname "$0")/drm_lib.sh" || exit 1

R="$T/m"
fx_root "$R" 6.8.0-45-generic
dev=$(fx_pci_card "$R" 1 0000:03:00.0 amdgpu 1002 744c)
fx_amdgpu "$dev" 6.8
fx_platform_card "$R" 2 fec00000.v3d v3d > /dev/null
# amdgpu, ≈6.4–6.11 format (docs/drm-fdinfo.md), space before the TAB included.
fx_client "$R" 4100 5 renderD129 "pasid:\t32791\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t4187\ndrm-memory-vram:\t2154500 KiB\ndrm-memory-gtt: \t46356 KiB\ndrm-memory-cpu: \t0 KiB\ndrm-engine-gfx:\t38124561233 ns\ndrm-engine-compute:\t4021771 ns\n"
# The same client dup()ed into a forked child: counted once.
fx_client "$R" 4101 7 renderD129 "pasid:\t32791\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t4187\ndrm-memory-vram:\t2154500 KiB\ndrm-engine-gfx:\t38124561233 ns\n"
# v3d: every key followed by a space and a TAB.
fx_client "$R" 4200 4 renderD130 "drm-driver: \tv3d\ndrm-client-id: \t38\ndrm-engine-bin: \t412003221 ns\ndrm-engine-render: \t1203311954 ns\ndrm-total-memory: \t40 MiB\ndrm-resident-memory: \t40 MiB\n"

GPUR_NVML_LIBRARY=$NO_NVML "$GPUR" --sysfs "$R/sys" --procfs "$R/proc" --backend amdgpu,drm --json -n 1 \
	< /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0 "procs: runs"
expect_get "$T/out" 1 processes.length 2 "procs: the amdgpu client once, the v3d one"
expect_get "$T/out" 1 processes.0.gpu_index 0 "procs: amdgpu row on GPU 0"
expect_get "$T/out" 1 processes.0.gpu_mem_bytes 2206208000 "procs: resident VRAM (2154500 KiB)"
expect_get "$T/out" 1 processes.0.kind both "procs: gfx and compute engines"
expect_get "$T/out" 1 processes.1.gpu_index 1 "procs: v3d row on GPU 1"
expect_get "$T/out" 1 processes.1.gpu_mem_bytes 41943040 "procs: v3d resident memory"
expect_get "$T/out" 1 processes.1.name gfxjob4200 "procs: name filled from the fixture's /proc"
finish
