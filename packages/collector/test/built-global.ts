// Global setup (vitest.config.ts): builds the packages once for the run (test/built.ts), before any test file
// starts, and hands the folder to every test file (built-workers.ts).
import type { TestProject } from 'vitest/node';
import { builtPackages } from './built.js';

export default function setup(project: TestProject): void {
  project.provide('builtPackages', builtPackages());
}
