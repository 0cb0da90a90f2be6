"""Only here to tag the wheel: a wheel that bundles libodatastore.so (put into
src/odatastore/_lib/ by build_wheel.sh) is a platform wheel (py3-none-<platform>), since the
library is machine code; without it the wheel is pure (py3-none-any). Metadata is in
pyproject.toml."""
import pathlib

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel

BUNDLED = (pathlib.Path(__file__).parent / "src" / "odatastore" / "_lib" / "libodatastore.so.0").exists()


class BundledDistribution(Distribution):
    def has_ext_modules(self) -> bool:  # the bundled library makes it a platform package
        return BUNDLED


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple:
        python, abi, plat = super().get_tag()
        return ("py3", "none", plat) if BUNDLED else (python, abi, plat)


setup(distclass=BundledDistribution, cmdclass={"bdist_wheel": PlatformWheel})
