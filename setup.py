"""`pip install . --no-build-isolation`: builds the Python module's native half
(the CMake target mlipc_python, python/CMakeLists.txt) in build/pip with the
project's CMake and puts it beside python/mlipc's files in the wheel. No
network: Debian's setuptools, cmake, pybind11-dev and the project's packages
(scripts/setup.sh)."""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(ROOT, "build", "pip")
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DMLIPC_TESTS=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        if shutil.which("ccache"):  # as scripts/ccache-env.sh: the objects other builds made
            os.environ.setdefault("CCACHE_BASEDIR", ROOT)
            os.environ.setdefault("CCACHE_NOHASHDIR", "true")
            args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, *args])
        subprocess.check_call(["cmake", "--build", build, "--target", "mlipc_python", "-j", str(os.cpu_count() or 1)])
        built = glob.glob(os.path.join(build, "python", "mlipc", "_mlipc*.so"))
        if len(built) != 1:
            raise RuntimeError(f"setup.py: no single _mlipc*.so in {build}/python/mlipc: {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("mlipc._mlipc", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join("build", "pip-setuptools")}})
