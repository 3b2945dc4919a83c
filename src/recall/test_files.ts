/**
 * Tests, told apart from the code they test. Asked "where is X done?", an
 * agent wants the implementation; a test that exercises X shares its words and
 * would crowd it out. Code recall lowers test files unless the query is about
 * tests (docs/decisions.md has the measurement).
 * @module
 */

/** What a test file's score is multiplied by when the query is not about tests. */
export const TEST_FILE_PRIOR = 0.25;

const TEST_FOLDER = /(^|\/)(tests?|testing|__tests__|specs?|e2e)\//i;
const TEST_FILE = new RegExp(
  [
    String.raw`(^|/)test_[^/]*$`, // Python: test_models.py
    String.raw`(^|/)conftest\.py$`, // pytest fixtures
    String.raw`_(test|spec)\.[a-z]+$`, // Go, Ruby, Python: models_test.go, user_spec.rb
    String.raw`\.(test|spec)\.[a-z]+$`, // JavaScript, TypeScript: app.test.ts
    String.raw`[a-z0-9](Test|Tests|IT)\.(java|kt|cs|php)$`, // JUnit, xUnit, PHPUnit: FooTest.java
  ].join("|"),
);
const ABOUT_TESTS = /\b(tests?|testing|unit ?tests?|test ?cases?|specs?|fixtures?)\b/i;

/** Whether a project-relative path is a test (by folder or by file name). */
export function isTestPath(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path);
}

/** Whether a query asks about tests themselves, so tests keep their full score. */
export function asksAboutTests(query: string): boolean {
  return ABOUT_TESTS.test(query);
}
