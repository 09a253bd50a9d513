"""Migration script 2: the total area of every face, from the vertices of each face
(SURFEDGES -> EDGES -> VERTICES), for the families whose faces are edge loops (Quake 1,
GoldSrc, Quake 2, Source).

    python bench/py/face_areas.py [--lib bspkit|bsp_tool] MAP...
"""
from _common import main


def polygon_area(points):
    # Fan from the first point: half the length of the summed cross products.
    x = y = z = 0.0
    ox, oy, oz = points[0] if points else (0, 0, 0)
    for (ax, ay, az), (bx, by, bz) in zip(points[1:], points[2:]):
        ax, ay, az, bx, by, bz = ax - ox, ay - oy, az - oz, bx - ox, by - oy, bz - oz
        x += ay * bz - az * by
        y += az * bx - ax * bz
        z += ax * by - ay * bx
    return 0.5 * (x * x + y * y + z * z) ** 0.5


def per_map(bsp, lib):
    if getattr(bsp, "SURFEDGES", None) is None:
        print("  no surfedges")  # faces are not edge loops in this family
        return
    faces, surfedges, edges, vertices = bsp.FACES, bsp.SURFEDGES, bsp.EDGES, bsp.VERTICES
    area = 0.0
    for face in faces:
        first, count = face.first_edge, face.num_edges  # the same names in bspkit and bsp_tool
        points = []
        for surfedge in surfedges[first:first + count]:
            edge = edges[abs(surfedge)]
            v = edge.v if lib == "bspkit" else edge  # bspkit: the edge's field `v`
            vertex = vertices[v[1] if surfedge < 0 else v[0]]
            # bspkit: a vertex record's one field (`point`, `pos`); bsp_tool: a vec3
            points.append(tuple(vertex[0]) if lib == "bspkit" else (vertex.x, vertex.y, vertex.z))
        area += polygon_area(points)
    print(f"  {len(faces)} faces, area {area:.1f}")


main(per_map)
