{
  "variables": {
    "address_sanitizer%": 0,
    "static_reader%": 0
  },
  "targets": [
    {
      "target_name": "customlabels",
      "conditions": [
        ["OS=='linux' and (target_arch=='x64' or target_arch=='arm64')", {
          "sources": [
            "src/core/abi.cc",
            "src/core/attribute_key_map.cc",
            "src/core/label_set_builder.cc",
            "src/core/native_builder.cc",
            "src/core/node_walk.cc",
            "src/core/otel_thread_ctx.cc",
            "src/core/process_context.cc",
            "src/core/process_context_mapping.cc",
            "src/core/process_context_payload.cc",
            "src/core/protobuf_writer.cc",
            "src/core/scratch_build.cc",
            "src/core/thread_context_record.cc",
            "src/core/tls_descriptor.cc",
            "src/core/node_mirrors.cc",
            # After abi.cc and otel_thread_ctx.cc: the linker lays TLS out in
            # input order, and their two pointers stay adjacent (one typed
            # array switches both, lib/core/publisher.js).
            "src/core/node_context.cc",
            "src/binding/addon.cc",
            "src/binding/idle_clear.cc",
            "src/binding/js_values.cc",
            "src/binding/own_memory.cc",
            "src/binding/testing.cc",
            "src/binding/libstdcxx_compat.cc"
          ],
          "defines": [
            "NAPI_VERSION=8",
            "NAPI_CPP_EXCEPTIONS",
            "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS",
            "NODE_ADDON_API_REQUIRE_BASIC_FINALIZERS",
            "NODE_ADDON_API_DISABLE_DEPRECATED"
          ],
          "cflags_cc!": ["-std=gnu++17", "-fno-exceptions"],
          "cflags_cc": [
            "-std=c++17", "-fexceptions", "-fvisibility=hidden",
            "-fvisibility-inlines-hidden",
            "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion",
            "-ftls-model=global-dynamic",
            "-isystem", "<!(node -p \"require('path').dirname(require.resolve('node-addon-api/package.json'))\")"
          ],
          "ldflags": ["-Wl,-z,now", "-Wl,-z,nodelete", "-Wl,--version-script=<(module_root_dir)/src/binding/exports.map"],
          "conditions": [
            ["target_arch=='x64'", {"cflags_cc": ["-mtls-dialect=gnu2"]}],
            ["target_arch=='arm64'", {"cflags_cc": ["-mtls-dialect=desc"]}],
            ["address_sanitizer==1", {
              "cflags_cc": ["-fsanitize=address", "-fno-omit-frame-pointer"],
              "ldflags": ["-fsanitize=address"]
            }]
          ]
        }, {
          "type": "none"
        }]
      ]
    },
    {
      "target_name": "customlabels-reader",
      "conditions": [
        ["OS=='linux' and (target_arch=='x64' or target_arch=='arm64')", {
          "type": "executable",
          "sources": [
            "src/core/node_walk.cc",
            "src/reader/abi_names.cc",
            "src/reader/abi_reader.cc",
            "src/reader/any_value.cc",
            "src/reader/check.cc",
            "src/reader/commands.cc",
            "src/reader/elf_checks.cc",
            "src/reader/elf_file.cc",
            "src/reader/file_bytes.cc",
            "src/reader/format.cc",
            "src/reader/inspect.cc",
            "src/reader/label_set_decoder.cc",
            "src/reader/label_views.cc",
            "src/reader/main.cc",
            "src/reader/memory_image.cc",
            "src/reader/node_checks.cc",
            "src/reader/node_walk.cc",
            "src/reader/options.cc",
            "src/reader/otel_checks.cc",
            "src/reader/otel_record.cc",
            "src/reader/otel_report.cc",
            "src/reader/parca_lookup.cc",
            "src/reader/process.cc",
            "src/reader/process_context.cc",
            "src/reader/protobuf_reader.cc",
            "src/reader/reader_lookups.cc",
            "src/reader/reader_profiles.cc",
            "src/reader/reader_sights.cc",
            "src/reader/reader_verdicts.cc",
            "src/reader/writers.cc",
            "src/reader/report.cc",
            "src/reader/sample.cc",
            "src/reader/sample_table.cc"
          ],
          "include_dirs": ["src"],
          "cflags_cc!": ["-std=gnu++17", "-fno-exceptions", "-fno-rtti"],
          "cflags_cc": ["-std=c++17", "-fexceptions", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wconversion"],
          "conditions": [
            ["static_reader==1", {"ldflags": ["-static"]}]
          ]
        }, {
          "type": "none"
        }]
      ]
    }
  ]
}
