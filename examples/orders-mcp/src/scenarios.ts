// What the scripted agent does, scene by scene, and which flag each scene must (or must not) produce. The
// end-to-end test and `pnpm demo` both read EXPECTED_FLAGS, so the story and its checks cannot drift apart.
import type { TaskWait } from './fulfilment-client.js';
import { RECOVERY_SCENES } from './recovery-scenes.js';
import type { Variant } from './tools.js';

/** The deployments the agent calls: the orders server's two (SDK 1.x), and fulfilment (SDK v2, 2026-07-28). */
export type Deployment = Variant | 'fulfilment';

export type Call = {
  server: Deployment;
  tool: string;
  args: Record<string, unknown>;
  /** An idempotency key sent in _meta. */
  key?: string;
  /** A tool that answers with a task: how the agent waits for it. */
  wait?: TaskWait;
};

export type Scene = {
  id: string;
  title: string;
  /** Each turn is one agent span (one trace) in the scene's conversation. */
  turns: Call[][];
  /** Each turn is another client's: a conversation of its own (drift needs several agents, not one's repeats). */
  clientPerTurn?: boolean;
  /** Pause between turns: the rollout scene spreads its traffic over time. */
  pauseMs?: number;
  /** Repair: when a call fails INVALID_INPUT, apply this and call again (a model that reads the issues). */
  repair?: (args: Record<string, unknown>, paths: string[]) => Record<string, unknown>;
};

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export const SCENES: Scene[] = [
  {
    id: 'loop',
    title: 'a wrong type repeated without repair',
    turns: [
      range(3).map(() => ({ server: 'stable', tool: 'get_order', args: { customerId: 42 } })),
    ],
  },
  {
    id: 'repair',
    title: 'a corrected retry (quiet)',
    turns: [[{ server: 'stable', tool: 'get_order', args: { customerId: 42 } }]],
    repair: (args, paths) =>
      paths.includes('customerId')
        ? { ...args, customerId: `cus_${String(args.customerId)}` }
        : args,
  },
  {
    id: 'transient',
    title: 'a transient upstream failure retried within the cap (quiet)',
    turns: [[{ server: 'stable', tool: 'get_order', args: { customerId: 'cus_flaky_7' } }]],
  },
  {
    // Before the rollout: its catalogue_list calls are v2's, and the rollout's traces stay the newest of it.
    id: 'cycle',
    title: 'an agent going round the same two reads, turn after turn, learning nothing new',
    turns: range(3).map(() => [
      { server: 'stable' as const, tool: 'get_order', args: { customerId: 'cus_31' } },
      { server: 'stable' as const, tool: 'catalogue_list', args: { minPrice: 0, maxPrice: 25 } },
    ]),
  },
  {
    id: 'rollout',
    title:
      'catalogue_list v3 rolling out next to v2, and get_order changed on the canary without a bump',
    pauseMs: 450,
    turns: range(10).map((i) =>
      i % 2 === 0
        ? [{ server: 'stable', tool: 'catalogue_list', args: { minPrice: 0, maxPrice: 50 + i } }]
        : [
            { server: 'canary', tool: 'catalogue_list', args: { price: { min: 0, max: 50 + i } } },
            { server: 'canary', tool: 'get_order', args: { customerId: `cus_1${i}` } },
          ],
    ),
  },
  {
    id: 'old-client',
    title: 'clients still sending the v2 input shape to catalogue_list v3',
    clientPerTurn: true,
    turns: range(4).map((i) => [
      { server: 'canary', tool: 'catalogue_list', args: { minPrice: 10, maxPrice: 60 + i } },
    ]),
  },
  {
    id: 'enum',
    title: 'the orders upstream starts returning a status the contract does not know',
    clientPerTurn: true,
    turns: range(3).map((i) => [
      { server: 'stable', tool: 'get_order', args: { customerId: `cus_90${i}` } },
    ]),
  },
  {
    id: 'rejected',
    title: 'a rejected write retried as is',
    turns: [
      range(2).map(() => ({
        server: 'stable',
        tool: 'order_intent',
        args: { sku: 'sku_gone', quantity: 1 },
      })),
    ],
  },
  {
    id: 'timeout',
    title: 'a write that times out after its effect, retried without a key',
    turns: [
      range(2).map(() => ({
        server: 'stable',
        tool: 'order_intent',
        args: { sku: 'sku_slow', quantity: 1 },
      })),
    ],
  },
  {
    id: 'keyed',
    title: 'the same write retried with an idempotency key (quiet: replayed, not repeated)',
    turns: [
      range(2).map(() => ({
        server: 'stable',
        tool: 'order_intent',
        args: { sku: 'sku_lamp', quantity: 2 },
        key: 'intent-lamp-2',
      })),
    ],
  },
  {
    id: 'deprecated',
    title: 'an agent still calling list_catalogue, renamed to catalogue_list',
    turns: [[{ server: 'stable', tool: 'list_catalogue', args: { maxPrice: 40 } }]],
  },
  {
    // Its call is quiet; the contract it reports on that call is not: heavy_schema weighs order_search's
    // tools/list entry, every filter described (order-search.ts), over the collector's token budget.
    id: 'search',
    title: 'a support question answered with order_search, whose contract grew a filter at a time',
    turns: [
      [
        {
          server: 'stable',
          tool: 'order_search',
          args: { customerId: 'cus_31', channel: ['web'], shippingCountry: 'ES', pageSize: 5 },
        },
      ],
    ],
  },
  {
    id: 'flood',
    title: 'order_history v2 drops pagination: every past order in one result',
    // v1 first, then v2: one version after the other is an upgrade, not skew.
    turns: [
      ...range(5).map((i) => [
        { server: 'stable' as const, tool: 'order_history', args: { customerId: `cus_7${i}` } },
      ]),
      ...range(5).map((i) => [
        { server: 'canary' as const, tool: 'order_history', args: { customerId: `cus_7${i}` } },
      ]),
    ],
  },
  {
    id: 'churn',
    title: 'an agent changing the quantity it sends while the contract keeps refusing it',
    turns: [
      [-1, -2, 0, -5].map((quantity) => ({
        server: 'stable' as const,
        tool: 'order_intent',
        args: { sku: 'sku_lamp', quantity },
      })),
    ],
  },
  {
    id: 'poll',
    title: 'an agent polling an order whose answer never changes',
    turns: [
      range(5).map(() => ({
        server: 'stable' as const,
        tool: 'get_order',
        args: { customerId: 'cus_poll' },
      })),
    ],
  },
  {
    id: 'cancel',
    title: 'a cancellation the user confirms when asked (quiet: one call across its two requests)',
    turns: [[{ server: 'fulfilment', tool: 'order_cancel', args: { orderId: 'ord_31_1' } }]],
  },
  {
    id: 'export',
    title:
      'an export task polled at the interval the server asks for (quiet: one call, however many polls)',
    turns: [
      [
        {
          server: 'fulfilment',
          tool: 'order_export',
          args: { customerId: 'cus_31' },
          wait: 'at-interval',
        },
      ],
    ],
  },
  {
    id: 'export-eager',
    title: 'an export task polled every few milliseconds though the server asked for one a second',
    turns: [
      [
        {
          server: 'fulfilment',
          tool: 'order_export',
          args: { customerId: 'cus_32' },
          wait: 'eagerly',
        },
      ],
    ],
  },
  // What agents do after failed calls, with an exactly known mix (recovery-scenes.ts).
  ...RECOVERY_SCENES,
];

/** Every flag kind the story must produce, with its tool and the scene it comes from. */
export const EXPECTED_FLAGS = [
  { kind: 'identical_retry', tool: 'get_order', scene: 'loop' },
  { kind: 'unrepaired_invalid_input', tool: 'get_order', scene: 'loop' },
  { kind: 'retry_after_non_retryable', tool: 'order_intent', scene: 'rejected' },
  { kind: 'unsafe_write_retry', tool: 'order_intent', scene: 'timeout' },
  { kind: 'tool_cycle', tool: 'get_order', scene: 'cycle' },
  { kind: 'argument_churn', tool: 'order_intent', scene: 'churn' },
  { kind: 'polling_no_progress', tool: 'get_order', scene: 'poll' },
  { kind: 'polling_faster_than_interval', tool: 'order_export', scene: 'export-eager' },
  { kind: 'silent_schema_change', tool: 'get_order', scene: 'rollout' },
  { kind: 'version_skew', tool: 'catalogue_list', scene: 'rollout' },
  { kind: 'input_drift', tool: 'catalogue_list', scene: 'old-client' },
  { kind: 'output_drift', tool: 'get_order', scene: 'enum' },
  { kind: 'deprecated_tool_in_use', tool: 'list_catalogue', scene: 'deprecated' },
  { kind: 'oversized_result', tool: 'order_history', scene: 'flood' },
  { kind: 'result_growth', tool: 'order_history', scene: 'flood' },
  // Read from the contract the scene's call reported, not from calls: no trace proves it, the tool's page does.
  { kind: 'heavy_schema', tool: 'order_search', scene: 'search' },
] as const;

/** Flags about what results cost: the demo's tool with heavy results is the only one that may carry them. */
export const RESULT_FLAG_TOOL = 'order_history';

/** Scenes that must produce no flag of their own. */
export const QUIET_SCENES = ['repair', 'transient', 'keyed', 'cancel', 'export'] as const;

/** The demo's rollout happens in seconds, so the collector must treat a 2 s overlap as skew. */
export const DEMO_ROLLOUT_GRACE_SECONDS = 2;
/** The same, as `toolscope serve --rollout-grace` takes it. */
export const DEMO_ROLLOUT_GRACE = `${DEMO_ROLLOUT_GRACE_SECONDS}s`;
