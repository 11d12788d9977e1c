// The scenes whose failures have an exactly known recovery (docs/recovery.md): what the scripted agent does after
// each failed call, scene by scene, and the counts per tool and code they must add up to. The demo plays them
// with the rest; the recovery tests play them alone and check every number.
import type { Scene } from './scenarios.js';

export const RECOVERY_SCENES: Scene[] = [
  {
    id: 'recover-fix',
    title: 'a refused input corrected at once',
    turns: [
      [
        { server: 'stable', tool: 'get_order', args: { customerId: 7 } },
        { server: 'stable', tool: 'get_order', args: { customerId: 'cus_7' } },
      ],
    ],
  },
  {
    id: 'recover-fix-later',
    title: 'a refused input corrected wrongly, then right, in the next turn',
    turns: [
      [{ server: 'stable', tool: 'get_order', args: { customerId: 8 } }],
      [
        { server: 'stable', tool: 'get_order', args: { customerId: '' } },
        { server: 'stable', tool: 'get_order', args: { customerId: 'cus_8' } },
      ],
    ],
  },
  {
    id: 'recover-same-again',
    title: 'a refused input sent again as it was, then another tool',
    turns: [
      [
        { server: 'stable', tool: 'get_order', args: { customerId: 9 } },
        { server: 'stable', tool: 'get_order', args: { customerId: 9 } },
        { server: 'stable', tool: 'catalogue_list', args: { minPrice: 0, maxPrice: 20 } },
      ],
    ],
  },
  {
    id: 'recover-none',
    title: 'a refused input, and nothing after it',
    turns: [[{ server: 'stable', tool: 'get_order', args: { customerId: 10 } }]],
  },
  {
    id: 'recover-output',
    title: 'a broken output left for a write, refused twice as it was, then changed',
    turns: [
      [
        { server: 'stable', tool: 'get_order', args: { customerId: 'cus_905' } },
        { server: 'stable', tool: 'order_intent', args: { sku: 'sku_gone', quantity: 1 } },
        { server: 'stable', tool: 'order_intent', args: { sku: 'sku_gone', quantity: 1 } },
        { server: 'stable', tool: 'order_intent', args: { sku: 'sku_mug', quantity: 1 } },
      ],
    ],
  },
  {
    id: 'recover-output-end',
    title: 'a broken output, and nothing after it',
    turns: [[{ server: 'stable', tool: 'get_order', args: { customerId: 'cus_906' } }]],
  },
];

type Outcomes = {
  repaired: number;
  failed_again: number;
  repeated: number;
  switched: number;
  gave_up: number;
};

/** What RECOVERY_SCENES add up to, per tool and code: counted by hand from the scenes above. */
export const EXPECTED_RECOVERY: Record<string, Record<string, Outcomes>> = {
  get_order: {
    // fix: repaired; fix-later: failed_again, then repaired; same-again: repeated, then switched; none: gave_up.
    INVALID_INPUT: { repaired: 2, failed_again: 1, repeated: 1, switched: 1, gave_up: 1 },
    // output: switched (to order_intent); output-end: gave_up.
    INVALID_OUTPUT: { repaired: 0, failed_again: 0, repeated: 0, switched: 1, gave_up: 1 },
  },
  order_intent: {
    // output: repeated as it was, then repaired with another item.
    REJECTED: { repaired: 1, failed_again: 0, repeated: 1, switched: 0, gave_up: 0 },
  },
};
