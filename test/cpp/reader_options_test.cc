// The reader's command line: what each command accepts, what it rejects and
// why, and the values of the limits.
#include <gtest/gtest.h>

#include "reader/options.h"

namespace customlabels::reader {
namespace {

Parsed P(std::vector<std::string> args) { return ParseOptions(args); }

std::string Error(std::vector<std::string> args) {
  const Parsed p = P(std::move(args));
  EXPECT_FALSE(p.options);
  EXPECT_EQ(p.exit, 2);
  return p.message;
}

TEST(Options, InspectWithEveryOptionItTakes) {
  const Parsed p =
      P({"inspect", "42", "--tid", "43", "--json", "--reader-limits", "parca", "--max-labels", "10",
         "--max-key-bytes", "2K", "--max-value-bytes", "1m", "--max-set-bytes", "1G"});
  ASSERT_TRUE(p.options) << p.message;
  const Options& o = *p.options;
  EXPECT_EQ(o.command, "inspect");
  EXPECT_EQ(o.target, "42");
  EXPECT_EQ(o.tid, 43);
  EXPECT_TRUE(o.json);
  ASSERT_NE(o.profile, nullptr);
  EXPECT_STREQ(o.profile->name, "parca");
  EXPECT_EQ(o.limits.max_labels, 10u);
  EXPECT_EQ(o.limits.max_key_bytes, 2048u);
  EXPECT_EQ(o.limits.max_value_bytes, 1u << 20);
  EXPECT_EQ(o.limits.max_set_bytes, 1u << 30);
}

TEST(Options, Defaults) {
  const Parsed p = P({"sample", "7"});
  ASSERT_TRUE(p.options);
  const ReadLimits d;
  EXPECT_EQ(p.options->limits.max_labels, d.max_labels);
  EXPECT_EQ(d.max_labels, 1024u);
  EXPECT_EQ(d.max_key_bytes, 1024u);
  EXPECT_EQ(d.max_value_bytes, 65536u);
  EXPECT_EQ(d.max_set_bytes, 1048576u);
  EXPECT_EQ(p.options->hz, 99);
  EXPECT_EQ(p.options->seconds, 10);
  EXPECT_FALSE(p.options->by);
  EXPECT_EQ(p.options->profile, nullptr);
}

TEST(Options, SampleTakesItsOwnOptions) {
  const Parsed p = P({"sample", "7", "--hz", "250", "--duration", "500ms", "--by", "tenant"});
  ASSERT_TRUE(p.options) << p.message;
  EXPECT_EQ(p.options->hz, 250);
  EXPECT_DOUBLE_EQ(p.options->seconds, 0.5);
  EXPECT_EQ(p.options->by, "tenant");
}

TEST(Options, AsNamesAReaderWhoseSightIsALabelSet) {
  const Parsed p = ParseOptions({"sample", "7", "--as", "parca"});
  ASSERT_TRUE(p.options);
  EXPECT_EQ(std::string(p.options->as->name), "parca");
  // --as parca shows what that agent keeps, unless --reader-limits says otherwise.
  EXPECT_EQ(std::string(p.options->profile->name), "parca");
  const Parsed q = ParseOptions({"inspect", "7", "--as", "parca", "--reader-limits", "parca-0.42"});
  ASSERT_TRUE(q.options);
  EXPECT_EQ(std::string(q.options->profile->name), "parca-0.42");
  const Parsed abi = ParseOptions({"inspect", "7", "--as", "abi-v1"});
  ASSERT_TRUE(abi.options);
  EXPECT_EQ(abi.options->profile, nullptr);
  EXPECT_EQ(Error({"inspect", "7", "--as", "otel-tls"}),
            "--as takes parca or abi-v1 (what the OpenTelemetry readers see is the otel part)");
  EXPECT_EQ(Error({"inspect", "7", "--as", "nobody"}),
            "--as takes parca or abi-v1 (what the OpenTelemetry readers see is the otel part)");
  EXPECT_EQ(Error({"check", "7", "--as", "parca"}), "--as is an option of inspect and sample, not of check");
  const Parsed check = ParseOptions({"check", "7", "--readers", "--json"});
  ASSERT_TRUE(check.options);
  EXPECT_TRUE(check.options->readers);
  EXPECT_TRUE(check.options->json);
}

TEST(Options, OptionsOfAnotherCommandAreRejected) {
  EXPECT_EQ(Error({"inspect", "1", "--hz", "99"}), "--hz is an option of sample, not of inspect");
  EXPECT_EQ(Error({"inspect", "1", "--duration", "1s"}),
            "--duration is an option of sample, not of inspect");
  EXPECT_EQ(Error({"inspect", "1", "--by", "k"}), "--by is an option of sample, not of inspect");
  EXPECT_EQ(Error({"check", "1", "--json"}), "check --json goes with --readers");
  EXPECT_EQ(Error({"inspect", "1", "--readers"}), "--readers is an option of check, not of inspect");
  EXPECT_EQ(Error({"check", "addon.node", "--readers"}),
            "check --readers needs a pid: it reads a live process");
  EXPECT_EQ(Error({"check", "f", "--max-labels", "3"}),
            "--max-labels is an option of inspect and sample, not of check");
}

TEST(Options, UnknownOptionsCommandsAndArguments) {
  EXPECT_EQ(Error({"inspect", "1", "--frobnicate"}), "unknown option '--frobnicate'");
  EXPECT_EQ(Error({"inspect", "1", "-x"}), "unknown option '-x'");
  EXPECT_EQ(Error({"nope"}), "unknown command 'nope'");
  EXPECT_EQ(Error({"versions"}),
            "versions is answered by the package's `customlabels` command (npx customlabels "
            "versions), not by the reader binary");
  EXPECT_EQ(Error({"inspect", "1", "2"}), "unexpected argument '2'");
  EXPECT_EQ(Error({"inspect"}), "inspect needs a pid");
  EXPECT_EQ(Error({"check"}), "check needs a file or pid");
  EXPECT_EQ(Error({"inspect", "abc"}), "'abc' is not a pid");
  EXPECT_EQ(Error({"inspect", "0"}), "'0' is not a pid");
  EXPECT_EQ(Error({"inspect", "1", "--tid"}), "--tid needs a value");
  EXPECT_EQ(Error({"inspect", "1", "--tid", "x"}), "--tid needs a thread id");
  EXPECT_EQ(Error({"inspect", "1", "--reader-limits", "nope"}),
            "--reader-limits takes one of: parca, parca-0.42");
  // check takes a file name that is not a pid.
  const Parsed check = P({"check", "build/Release/customlabels.node"});
  ASSERT_TRUE(check.options);
  EXPECT_EQ(check.options->target, "build/Release/customlabels.node");
}

TEST(Options, LimitValuesAreValidated) {
  EXPECT_EQ(Error({"inspect", "1", "--max-labels", "0"}), "--max-labels takes 1 to 1048576");
  EXPECT_EQ(Error({"inspect", "1", "--max-labels", "2M"}), "--max-labels takes 1 to 1048576");
  EXPECT_TRUE(P({"inspect", "1", "--max-labels", "1M"}).options);
  EXPECT_EQ(Error({"inspect", "1", "--max-key-bytes", "0"}),
            "--max-key-bytes takes 1 to 1G bytes (K, M, G: powers of 1024)");
  EXPECT_EQ(Error({"inspect", "1", "--max-set-bytes", "2G"}),
            "--max-set-bytes takes 1 to 1G bytes (K, M, G: powers of 1024)");
  EXPECT_EQ(Error({"inspect", "1", "--max-value-bytes", "-1"}),
            "--max-value-bytes takes 0 to 1G bytes (K, M, G: powers of 1024)");
  const Parsed zero = P({"inspect", "1", "--max-value-bytes", "0"});
  ASSERT_TRUE(zero.options);  // keys only
  EXPECT_EQ(zero.options->limits.max_value_bytes, 0u);
  for (const char* bad : {"", "1.5K", "K", "12KB", "99999999999999", "0x10", " 1"}) {
    EXPECT_FALSE(P({"inspect", "1", "--max-key-bytes", bad}).options) << bad;
  }
}

TEST(Options, SampleValuesAreValidated) {
  EXPECT_EQ(Error({"sample", "1", "--hz", "0"}), "--hz takes 1 to 10000");
  EXPECT_EQ(Error({"sample", "1", "--hz", "99x"}), "--hz takes 1 to 10000");
  EXPECT_EQ(Error({"sample", "1", "--hz", "nan"}), "--hz takes 1 to 10000");
  EXPECT_EQ(Error({"sample", "1", "--duration", "0s"}), "--duration takes e.g. 10s, 500ms, 2m");
  EXPECT_EQ(Error({"sample", "1", "--by", ""}), "--by needs a label key");
}

TEST(Options, Help) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{}, {"--help"}, {"inspect", "-h"}}) {
    const Parsed p = P(args);
    EXPECT_FALSE(p.options);
    EXPECT_EQ(p.exit, 0);
    EXPECT_EQ(p.message, UsageText());
  }
  const std::string help = UsageText();
  for (const char* text :
       {"--max-labels N", "--max-key-bytes N", "--max-value-bytes N", "--max-set-bytes N",
        "(default 1024,", "(default 64K)", "(default 1M)",
        "parca: Parca agent: 10 labels, keys 25 B,\n                          values 53 B, "
        "the last of a key wins\n",
        "7 unreadable memory: no thread's set could be read"}) {
    EXPECT_NE(help.find(text), std::string::npos) << text;
  }
}

TEST(Options, Durations) {
  double s = 0;
  EXPECT_TRUE(ParseDuration("10s", &s));
  EXPECT_EQ(s, 10);
  EXPECT_TRUE(ParseDuration("2m", &s));
  EXPECT_EQ(s, 120);
  EXPECT_TRUE(ParseDuration("1.5", &s));
  EXPECT_EQ(s, 1.5);
  EXPECT_TRUE(ParseDuration("250ms", &s));
  EXPECT_EQ(s, 0.25);
  for (const char* bad : {"", "s", "-1s", "1h", "1e3", "0"})
    EXPECT_FALSE(ParseDuration(bad, &s)) << bad;
}

}  // namespace
}  // namespace customlabels::reader
