#!/usr/bin/env python3
"""Regenerate Faro's shipped topology models (affinity/models/*.xml).

Each model starts as an hwloc synthetic topology exported to XML by
lstopo-no-graphics (hwloc 2.x); this script then adds what a synthetic string
cannot say: the PCI host bridge, the network card and its OS devices, attached
under the object whose cpuset is the card's locality. See README in this
directory. Run from anywhere: python3 make-models.py [outdir]
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

MODELS = {
    # HP Integrity rx7640 node of Finis Terrae (CESGA, 2007): 2 cells, each a
    # NUMA node with 4 dual-core Itanium 2 Montvale sockets (9 MB L3 per core)
    # and 64 GiB; the InfiniBand HCA sits in cell 1 (OS cores 8-15).
    "rx7640": {
        "synthetic": "numa:2(memory=68719476736) package:4 l3:2(size=9437184) core:1 pu:1",
        "attach_cpuset": "0x0000ff00",
        "bus": 0x80,
        "pci_type": "0c06 [15b3:634a] [15b3:634a] a0",  # ConnectX IB DDR (MT25418)
        "describe": "HP Integrity rx7640 (Finis Terrae node): 2 cells x 4 sockets x 2 cores, "
                    "InfiniBand HCA mlx4_0/ib0 in cell 1",
    },
    # FinisTerrae II-like node (CESGA, 2016): 2 Haswell sockets of 12 cores,
    # one NUMA node per socket (64 GiB each), 30 MB L3 per socket; the
    # InfiniBand FDR HCA on socket 0.
    "ft2": {
        "synthetic": "package:2 numa:1(memory=68719476736) l3:1(size=31457280) "
                     "l2:12(size=262144) l1d:1(size=32768) core:1 pu:1",
        "attach_cpuset": "0x00000fff",
        "bus": 0x04,
        "pci_type": "0c06 [15b3:1003] [15b3:0022] 00",  # ConnectX-3 (MT27500)
        "describe": "FinisTerrae II-like node: 2 sockets x 12 cores, 1 NUMA node per socket, "
                    "InfiniBand HCA mlx4_0/ib0 on socket 0",
    },
}


def build(name, m):
    xml = subprocess.run(["lstopo-no-graphics", "-i", m["synthetic"], "--of", "xml", "-"],
                         check=True, capture_output=True, text=True).stdout
    root = ET.fromstring(xml)
    machine = root.find("object")
    # Drop what describes the exporting run, keep the hwloc version, say what this is.
    for info in list(machine.findall("info")):
        if info.get("name") in ("ProcessName", "Backend"):
            machine.remove(info)
    ET.SubElement(machine, "info", name="FaroModel", value=m["describe"])
    # Infos must come before children objects in hwloc's XML.
    infos = machine.findall("info")
    for i in infos:
        machine.remove(i)
    for k, i in enumerate(infos):
        machine.insert(k, i)

    parent = None
    for obj in machine.iter("object"):
        if obj.get("cpuset") == m["attach_cpuset"] and obj.get("type") in ("Group", "Package"):
            parent = obj
            break
    if parent is None:
        sys.exit(f"{name}: no Group/Package with cpuset {m['attach_cpuset']}")
    gp = max(int(o.get("gp_index", "0")) for o in machine.iter("object")) + 1
    bus = m["bus"]
    bridge = ET.SubElement(parent, "object", type="Bridge", gp_index=str(gp), bridge_type="0-1",
                           depth="0", bridge_pci=f"0000:[{bus:02x}-{bus:02x}]")
    pci = ET.SubElement(bridge, "object", type="PCIDev", gp_index=str(gp + 1),
                        pci_busid=f"0000:{bus:02x}:00.0", pci_type=m["pci_type"],
                        pci_link_speed="0.000000")
    ET.SubElement(pci, "info", name="PCIVendor", value="Mellanox Technologies")
    ib0 = ET.SubElement(pci, "object", type="OSDev", gp_index=str(gp + 2), name="ib0",
                        osdev_type="2")
    ET.SubElement(ib0, "info", name="Address",
                  value="80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:00:01")
    ET.SubElement(ib0, "info", name="Port", value="1")
    hca = ET.SubElement(pci, "object", type="OSDev", gp_index=str(gp + 3), name="mlx4_0",
                        osdev_type="3")
    ET.SubElement(hca, "info", name="NodeGUID", value="0002:c903:0000:0001")
    ET.SubElement(hca, "info", name="Port1State", value="4")
    ET.SubElement(hca, "info", name="Port1LID", value="0x1")
    ET.indent(root, space="  ")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
            + ET.tostring(root, encoding="unicode") + "\n")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, m in MODELS.items():
        path = os.path.join(outdir, name + ".xml")
        with open(path, "w") as f:
            f.write(build(name, m))
        print("wrote", path)


if __name__ == "__main__":
    main()
