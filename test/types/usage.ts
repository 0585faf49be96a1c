// Type-checked by test/js/types.test.js (tsc --strict): valid usage compiles,
// each @ts-expect-error line must be an error.
import { withLabels, currentLabels, supported, strategy, configure, Labels, LabelValue } from 'customlabels';

const n: number = withLabels({ route: '/a', n: 1, ok: true, big: 1n, raw: new Uint8Array(2), gone: null, u: undefined }, () => 42);
const p: Promise<string> = withLabels(new Map<string, LabelValue>([['k', 'v']]), async () => 'x');
const labels: Record<string, string> = currentLabels();
const s: boolean = supported;
const kind: string = strategy().strategy;
const threadContext: 'off' | 'unpublished' | 'published' | 'other-publisher' | 'failed' = strategy().threadContext;
const schema: 'tlsdesc_v1_dev' | 'nodejs_v1_dev' | null = strategy().schema;
const hooks: boolean = strategy().hooks;
const recordSlot: number | undefined = strategy().nodeLayout?.recordSlotOffset;
configure({ hooks: false });
configure({});
const frozen: Labels = Object.freeze({ tenant: 't' });
withLabels(frozen, () => undefined);

// @ts-expect-error values must be label values
withLabels({ nested: { a: 1 } }, () => 0);
// @ts-expect-error labels must be an object or a Map
withLabels('route=/a', () => 0);
// @ts-expect-error fn is required
withLabels({ a: '1' });
// @ts-expect-error fn takes no arguments
withLabels({ a: '1' }, (x: number) => x);
// @ts-expect-error Map keys are strings
withLabels(new Map([[1, 'v']]), () => 0);
// @ts-expect-error hooks is a boolean
configure({ hooks: 'off' });
// @ts-expect-error currentLabels values are strings
const wrong: Record<string, number> = currentLabels();

export { n, p, labels, s, kind, wrong, schema, hooks, recordSlot, threadContext };
