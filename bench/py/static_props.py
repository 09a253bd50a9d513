"""Migration script 3: list Source static props with their models.

    python bench/py/static_props.py [--lib bspkit|bsp_tool] MAP...
"""
from _common import main


def per_map(bsp, lib):
    if getattr(bsp, "GAME_LUMP", None) is None:
        print("  no game lump")
        return
    sprp = bsp.GAME_LUMP.sprp
    if sprp is None:
        print("  no static props")
        return
    print(f"  {len(sprp.props)} props, {len(sprp.model_names)} models")
    for prop in sprp.props:
        # bspkit gives the model's name; bsp_tool an index into model_names
        model = prop.model_name if lib == "bspkit" else sprp.model_names[prop.model_name]
        x, y, z = prop.origin
        print(f"  {model} {x:.1f} {y:.1f} {z:.1f}")


main(per_map)
