// Imported first by main.tsx: Zod compiles object parsers with `new Function` unless told not to, and the
// collector's Content-Security-Policy forbids eval. Schemas check this flag when they are created, so it
// must be set before any schema module is evaluated.
import { z } from 'zod';

z.config({ jitless: true });
