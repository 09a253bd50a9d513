"""Migration script 1: count entities by classname, and list the named ones.

    python bench/py/entities_by_classname.py [--lib bspkit|bsp_tool] MAP...
"""
import collections

from _common import main


def per_map(bsp, lib):
    ents = bsp.ENTITIES
    counts = collections.Counter(e.get("classname", "?") for e in ents)
    print(f"  {len(ents)} entities")
    for classname, n in sorted(counts.items()):
        print(f"  {classname} {n}")
    for e in ents:
        if "targetname" in e:
            print(f"  named {e.get('classname')} {e['targetname']}")


main(per_map)
