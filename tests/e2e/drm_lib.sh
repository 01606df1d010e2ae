# drm_lib.sh: sysfs and procfs fixture trees of DRM GPUs, written at run time
# from the kernel documentation of each driver (formats and sample
# values from there; made-up numbers). Sourced after lib.sh.
#
#   fx_root DIR KERNEL        an empty machine: DIR/sys, DIR/proc with
#                             sys/kernel/osrelease = KERNEL
#   fx_pci_card DIR N BDF DRIVER VENDOR DEVICE
#                             class/drm/cardN (+ renderD(128+N), a connector
#                             cardN-DP-1) -> devices/pci0000:00/BDF, bound to
#                             DRIVER; prints the device directory
#   fx_platform_card DIR N NAME DRIVER   the same for a platform device
#   fx_amdgpu DEV KERNEL      amdgpu files in device dir DEV in the format of
#                             KERNEL (5.15, 6.8, 6.13); hwmon/hwmon4
#   fx_amdgpu_apu DEV         an APU's files (no junction/mem, extra dpm line,
#                             link Unknown)
#   fx_i915 CARDDIR / fx_xe DEV   Intel frequency and hwmon files
#   fx_client DIR PID FD RENDER FDINFO   a process with fd FD -> /dev/dri/RENDER
#                             (a real symlink) and fdinfo FD = FDINFO
#   fx_fifos DIR FILE...      replaces each FILE by a FIFO: any open of one for
#                             reading blocks until a writer comes
# put FILE CONTENT: writes CONTENT (printf %b) to FILE, creating its directory.
put() {
	mkdir -p "$(dirname "$1")"
	printf '%b' "$2" > "$1"
}

fx_root() {
	mkdir -p "$1/sys/class/drm" "$1/sys/bus/pci/drivers" "$1/sys/bus/platform/drivers" "$1/sys/module"
	put "$1/proc/sys/kernel/osrelease" "$2\n"
	put "$1/proc/stat" "cpu  100 0 100 1000 0 0 0 0 0 0\nbtime 1700000000\n"
	put "$1/proc/meminfo" "MemTotal: 16000000 kB\nMemAvailable: 8000000 kB\n"
	put "$1/proc/loadavg" "0.50 0.40 0.30 1/100 1234\n"
}

# fx_card_links DIR N DEVREL DRIVER BUS: the class/drm and driver links of a card.
fx_card_links() {
	local dir=$1 n=$2 devrel=$3 driver=$4 bus=$5
	local dev="$dir/sys/$devrel"
	mkdir -p "$dev/drm/card$n/power" "$dev/drm/renderD$((128 + n))" "$dev/drm/card$n-DP-1" \
		"$dir/sys/bus/$bus/drivers/$driver"
	# As the kernel writes them: ../../../<device name>.
	ln -s "../../../${devrel##*/}" "$dev/drm/card$n/device"
	ln -s "../../../${devrel##*/}" "$dev/drm/card$n-DP-1/device"
	ln -s "$dir/sys/bus/$bus/drivers/$driver" "$dev/driver"
	ln -s "../../$devrel/drm/card$n" "$dir/sys/class/drm/card$n"
	ln -s "../../$devrel/drm/card$n-DP-1" "$dir/sys/class/drm/card$n-DP-1"
	ln -s "../../$devrel/drm/renderD$((128 + n))" "$dir/sys/class/drm/renderD$((128 + n))"
	put "$dev/power/runtime_status" "active\n"
	put "$dev/uevent" "DRIVER=$driver\n"
}

fx_pci_card() {
	local dir=$1 n=$2 bdf=$3 driver=$4 vendor=$5 device=$6
	local devrel="devices/pci0000:00/$bdf"
	fx_card_links "$dir" "$n" "$devrel" "$driver" pci
	local dev="$dir/sys/$devrel"
	put "$dev/vendor" "0x$vendor\n"
	put "$dev/device" "0x$device\n"
	put "$dev/subsystem_vendor" "0x$vendor\n"
	put "$dev/subsystem_device" "0x0e3b\n"
	put "$dev/class" "0x030000\n"
	echo "$dev"
}

fx_platform_card() {
	local dir=$1 n=$2 name=$3 driver=$4
	local devrel="devices/platform/soc/$name"
	fx_card_links "$dir" "$n" "$devrel" "$driver" platform
	echo "$dir/sys/$devrel"
}

# The PCI core's link files of a dGPU.
fx_link() {
	put "$1/current_link_speed" "${2:-16.0 GT/s PCIe}\n"
	put "$1/current_link_width" "${3:-16}\n"
	put "$1/max_link_speed" "${4:-16.0 GT/s PCIe}\n"
	put "$1/max_link_width" "${5:-16}\n"
}

# RX 7900-class card of the amdgpu documentation; KERNEL picks the power file and labels.
fx_amdgpu() {
	local dev=$1 kernel=$2 hw="$1/hwmon/hwmon4"
	put "$dev/gpu_busy_percent" "37\n"
	put "$dev/mem_busy_percent" "12\n"
	put "$dev/mem_info_vram_vendor" "samsung\n"
	put "$dev/mem_info_vram_total" "25753026560\n"
	put "$dev/mem_info_vram_used" "1846542336\n"
	put "$dev/mem_info_vis_vram_total" "268435456\n"
	put "$dev/mem_info_vis_vram_used" "121634816\n"
	put "$dev/mem_info_gtt_total" "33507364864\n"
	put "$dev/mem_info_gtt_used" "52793344\n"
	put "$dev/pp_dpm_sclk" "0: 500Mhz \n1: 1834Mhz *\n2: 2526Mhz \n"
	put "$dev/pp_dpm_mclk" "0: 96Mhz \n1: 456Mhz \n2: 772Mhz \n3: 1249Mhz *\n"
	put "$dev/power_dpm_force_performance_level" "auto\n"
	# gpu_metrics: a v1.3 table (a dGPU's), its header then zeros.
	put "$dev/gpu_metrics" "\0170\0000\0001\0003\0000\0000\0000\0000"
	put "$dev/unique_id" "a3d1c0e2b48f9c17\n"
	put "$dev/vbios_version" "113-D7020100-102\n"
	fx_link "$dev"
	put "$hw/name" "amdgpu\n"
	put "$hw/temp1_input" "52000\n"
	put "$hw/temp1_crit" "100000\n"
	put "$hw/temp1_crit_hyst" "-273150\n"
	put "$hw/temp1_emergency" "105000\n"
	put "$hw/temp2_input" "61000\n"
	put "$hw/temp2_crit" "110000\n"
	put "$hw/temp3_input" "64000\n"
	put "$hw/temp3_crit" "100000\n"
	if [ "$kernel" != 5.15 ]; then
		put "$hw/temp1_label" "edge\n"
		put "$hw/temp2_label" "junction\n"
		put "$hw/temp3_label" "mem\n"
	fi
	put "$hw/in0_input" "893\n"
	put "$hw/in0_label" "vddgfx\n"
	case $kernel in
	6.13) put "$hw/power1_input" "87250000\n"; put "$hw/temp1_input" "52500\n" ;;
	*) put "$hw/power1_average" "87000000\n" ;;
	esac
	put "$hw/power1_cap" "327000000\n"
	put "$hw/power1_cap_max" "402000000\n"
	put "$hw/power1_cap_min" "0\n"
	put "$hw/power1_cap_default" "327000000\n"
	put "$hw/power1_label" "PPT\n"
	put "$hw/fan1_input" "1211\n"
	put "$hw/fan1_min" "0\n"
	put "$hw/fan1_max" "3300\n"
	put "$hw/pwm1" "76\n"
	put "$hw/pwm1_enable" "2\n"
	put "$hw/pwm1_min" "0\n"
	put "$hw/pwm1_max" "255\n"
	put "$hw/freq1_input" "1834000000\n"
	put "$hw/freq1_label" "sclk\n"
}

# A Renoir-class APU: carve-out VRAM, one temperature, an unlisted current
# sclk, no PCIe link of its own.
fx_amdgpu_apu() {
	local dev=$1 hw="$1/hwmon/hwmon2"
	put "$dev/gpu_busy_percent" "4\n"
	put "$dev/mem_busy_percent" "0\n"
	put "$dev/mem_info_vram_total" "536870912\n"
	put "$dev/mem_info_vram_used" "201326592\n"
	put "$dev/mem_info_gtt_total" "8053063680\n"
	put "$dev/mem_info_gtt_used" "104857600\n"
	put "$dev/pp_dpm_sclk" "0: 200Mhz \n1: 1100Mhz \n2: 1800Mhz \n   800Mhz *\n"
	put "$dev/pp_dpm_mclk" "0: 400Mhz *\n1: 1600Mhz \n"
	put "$dev/power_dpm_force_performance_level" "profile_standard\n"
	# gpu_metrics: a v2.1 table (an APU's), its header then zeros.
	put "$dev/gpu_metrics" "\0140\0000\0002\0001\0000\0000\0000\0000"
	fx_link "$dev" Unknown 0 Unknown 0
	put "$hw/name" "amdgpu\n"
	put "$hw/temp1_input" "45125\n"
	put "$hw/temp1_label" "edge\n"
	put "$hw/in0_input" "1100\n"
	put "$hw/in1_input" "900\n"
	put "$hw/in1_label" "vddnb\n"
	put "$hw/power1_average" "9000000\n"
	put "$hw/power1_label" "PPT\n"
}

# i915 frequencies live in the card directory; an iGPU has no hwmon.
fx_i915() {
	put "$1/gt_act_freq_mhz" "1300\n"
	put "$1/gt_cur_freq_mhz" "1300\n"
	put "$1/gt_max_freq_mhz" "1450\n"
	put "$1/gt_min_freq_mhz" "300\n"
	put "$1/gt_boost_freq_mhz" "1450\n"
	put "$1/gt_RP0_freq_mhz" "1450\n"
	put "$1/gt_RPn_freq_mhz" "100\n"
	put "$1/gt/gt0/rps_act_freq_mhz" "1300\n"
	put "$1/power/rc6_residency_ms" "123456\n"
}

# An xe dGPU (Battlemage-class): tile0/gt0 frequencies, VRAM size, hwmon
# channels 1 card, 2 pkg, temp3 vram.
fx_xe() {
	local dev=$1 hw="$1/hwmon/hwmon7" f="$1/tile0/gt0/freq0"
	put "$f/act_freq" "2400\n"
	put "$f/cur_freq" "2450\n"
	put "$f/max_freq" "2850\n"
	put "$f/min_freq" "400\n"
	put "$f/rp0_freq" "2850\n"
	put "$f/rpn_freq" "400\n"
	put "$dev/tile0/physical_vram_size_bytes" "12884901888\n"
	fx_link "$dev" "16.0 GT/s PCIe" 8 "16.0 GT/s PCIe" 8
	put "$hw/name" "xe\n"
	put "$hw/energy1_input" "1500000000\n"
	put "$hw/energy2_input" "1200000000\n"
	put "$hw/power1_max" "190000000\n"
	put "$hw/power1_rated_max" "0\n"
	put "$hw/power1_label" "card\n"
	put "$hw/power2_label" "pkg\n"
	put "$hw/in1_input" "925\n"
	put "$hw/temp2_input" "58000\n"
	put "$hw/temp2_label" "pkg\n"
	put "$hw/temp3_input" "62000\n"
	put "$hw/temp3_label" "vram\n"
	put "$hw/fan1_input" "1450\n"
}

fx_client() {
	local dir=$1 pid=$2 fd=$3 render=$4 info=$5 p="$1/proc/$2"
	mkdir -p "$p/fd" "$p/fdinfo"
	ln -s "/dev/dri/$render" "$p/fd/$fd"
	ln -s /dev/null "$p/fd/0"
	put "$p/fdinfo/0" "pos:\t0\nflags:\t02\nmnt_id:\t23\nino:\t5\n"
	put "$p/fdinfo/$fd" "pos:\t0\nflags:\t02100002\nmnt_id:\t23\nino:\t1042\n$info"
	put "$p/comm" "gfxjob$pid\n"
	printf 'gfxjob%s\0--fixture\0' "$pid" > "$p/cmdline"
	put "$p/stat" "$pid (gfxjob$pid) S 1 $pid $pid 0 -1 4194304 100 0 0 0 50 20 0 0 20 0 1 0 4242 100000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n"
	put "$p/status" "Name:\tgfxjob$pid\nUid:\t0\t0\t0\t0\nNSpid:\t$pid\n"
	put "$p/cgroup" "0::/user.slice/user-0.slice/session-1.scope\n"
}

fx_fifos() {
	local dir=$1 f
	shift
	for f in "$@"; do
		rm -f "$dir/$f"
		mkdir -p "$(dirname "$dir/$f")"
		mkfifo "$dir/$f"
	done
}
