// Vitest's order, except that the files known to take minutes start first. Without timings of an earlier run (a
// clean clone, as CI always is) vitest starts larger files first, by bytes, and a short file that runs the
// README's commands for minutes (test/e2e/readme-clone.test.ts) would start near the end, its minutes added to
// the suite's on a 2-core machine (docs/decisions/0062).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files measured to take minutes, relative to the root, longest first. */
const LONGEST = ['test/e2e/readme-clone.test.ts'];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((l) => f.moduleId.endsWith(`/${l}`));
      return i < 0 ? LONGEST.length : i;
    };
    // A stable sort: everything else keeps vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
