{
  "targets": [
    {
      "target_name": "native_promise_hook",
      "sources": ["native_promise_hook.cc"],
      "cflags_cc": ["-O2", "-std=c++20"]
    }
  ]
}
