"""Camera: the target projects to the image centre, a point along a pixel's
ray projects back to that pixel, and CLEVR's relation directions lie on the
floor."""
import numpy as np

from mmidc.synthetic.camera import Camera

CAMERA = Camera(azimuth=30.0, elevation=45.0, distance=10.0, target=(1.0, -2.0))


def test_projection_and_rays_agree():
    xy, depth = CAMERA.project(np.array([[1.0, -2.0, 0.0]]), 320, 240)
    np.testing.assert_allclose(xy[0], (160, 120), atol=1e-9)
    assert abs(depth[0] - 10.0) < 1e-9
    assert abs(CAMERA.position[2] - 10 * np.sin(np.radians(45))) < 1e-9
    rays = CAMERA.ray_directions(320, 240)
    assert all(r.shape == (240, 320) for r in rays)
    np.testing.assert_allclose(np.sqrt(sum(r * r for r in rays)), 1.0, atol=1e-5)
    for row, col in ((0, 0), (17, 250), (239, 319)):
        ray = np.array([r[row, col] for r in rays], dtype=np.float64)
        point = CAMERA.position + 7.0 * ray
        xy, depth = CAMERA.project(point[None], 320, 240)
        np.testing.assert_allclose(xy[0], (col + 0.5, row + 0.5), atol=1e-3)


def test_relation_directions_and_round_trip():
    dirs = CAMERA.ground_directions()
    forward = CAMERA.basis()[0]
    assert dirs['behind'][2] == 0 and abs(np.linalg.norm(dirs['left']) - 1) < 1e-9
    assert abs(dirs['behind'] @ dirs['left']) < 1e-9
    assert dirs['behind'] @ forward > 0  # away from the camera
    np.testing.assert_allclose(dirs['front'], -dirs['behind'])
    again = Camera.from_dict(CAMERA.to_dict())
    assert again == CAMERA
    np.testing.assert_allclose(again.position, CAMERA.position)
