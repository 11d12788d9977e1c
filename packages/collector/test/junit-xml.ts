// Reads a JUnit report as CI systems do (fast-xml-parser, attributes kept) for the report tests.
import { XMLParser } from 'fast-xml-parser';

export type JunitSuite = {
  tests: string;
  failures: string;
  testcase: { classname: string; name: string; failure?: { message: string } }[];
};

/** The one test suite of a `toolscope report --format junit` document. */
export function junitSuite(xml: string): JunitSuite {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: { testsuite: JunitSuite };
  };
  return doc.testsuites.testsuite;
}
