import assert from "node:assert/strict";
import { asksAboutTests, isTestPath } from "../../src/recall/test_files.ts";

Deno.test("isTestPath() knows test folders and each ecosystem's test file names", () => {
  for (
    const path of [
      "tests/test_models.py",
      "src/_pytest/testing/helpers.py",
      "testing/python/metafunc.py",
      "requests/test_utils.py",
      "conftest.py",
      "pkg/server/handler_test.go",
      "spec/models/user_spec.rb",
      "web/src/app.test.tsx",
      "web/src/__tests__/app.ts",
      "lib/api.spec.js",
      "src/main/java/org/shop/CartTest.java",
      "Shop.Tests/CartTests.cs",
    ]
  ) assert.ok(isTestPath(path), path);
  for (
    const path of [
      "requests/models.py",
      "src/_pytest/python_api.py",
      "src/attestation.ts",
      "src/contest/Contest.java",
      "docs/testing.md",
      "src/latest.py",
      "lib/inspect.js",
    ]
  ) assert.ok(!isTestPath(path), path);
});

Deno.test("asksAboutTests() hears tests, fixtures and specs, not words that contain them", () => {
  for (
    const query of ["why does this test fail", "unit tests for the parser", "the db fixture"]
  ) assert.ok(asksAboutTests(query), query);
  for (const query of ["pytest crashes on import", "latest release", "attestation of builds"]) {
    assert.ok(!asksAboutTests(query), query);
  }
});
