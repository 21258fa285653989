"""What the benchmarks read of a process: its resident memory."""


def rss_kib(pid):
    """VmRSS of process `pid`, in KiB (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0
