# The V8 unit (frame_access.cc), built once per Node.js ABI against that
# Node.js's headers: scripts/build-v8.js runs
#   node-gyp rebuild --directory src/v8 --target <version> --nodedir <node>
# and copies build/Release/customlabels_v8.node to customlabels-v8-abi<N>.node.
# It shares two core headers, core/scratch_protocol.h and core/native_builder.h
# (under ".." here, copied next to the sources in build-v8.js's scratch copy).
{
  "targets": [
    {
      "target_name": "customlabels_v8",
      "conditions": [
        ["OS=='linux' and (target_arch=='x64' or target_arch=='arm64')", {
          "sources": ["frame_access.cc"],
          "include_dirs": [".", ".."],
          "cflags_cc!": ["-std=gnu++17", "-fno-exceptions"],
          "cflags_cc": [
            "-std=c++20", "-fvisibility=hidden", "-fvisibility-inlines-hidden",
            "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-cast-function-type"
          ],
          "ldflags": ["-Wl,-z,now"]
        }, {
          "type": "none"
        }]
      ]
    }
  ]
}
