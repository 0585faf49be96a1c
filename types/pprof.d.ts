// customlabels/pprof: customlabels' labels on the samples of @datadog/pprof's wall profiler
// (and of Grafana Pyroscope's Node.js SDK, New Relic's profiler and dd-trace, which run on
// it). Structural types: nothing here imports either package, so these compile without them.

/** The @datadog/pprof module: what instrument() reads of it. */
export interface PprofModuleLike {
  time: { start: (...args: any[]) => any; stop: (...args: any[]) => any; [key: string]: any };
}

/** The @pyroscope/nodejs module (its own @datadog/pprof is the one followed). */
export interface PyroscopeModuleLike {
  init: (...args: any[]) => any;
  start: (...args: any[]) => any;
  [key: string]: any;
}

/** How one followed profiler gets the labels on this thread. */
export interface ProfilerStrategy {
  /** '@datadog/pprof 5.20.0' */
  profiler: string;
  /**
   * 'frame': a context per async context (started with useCPED on Node.js 24+, hooks on or off);
   * 'global': one context per thread, switched by customlabels' hooks; 'none': see reason.
   */
  context: 'frame' | 'global' | 'none';
  /** Why there are no labels ('none'), or null. */
  reason: string | null;
}

/**
 * Follows the wall profiler of that module from now on (a profiler already started too): its
 * samples carry the labels current when they were taken. False for a version this release does
 * not support (with one warning). Throws a TypeError (code ERR_CUSTOMLABELS_INVALID_ARG_TYPE) for
 * anything else.
 */
export function instrument(profiler: PprofModuleLike | PyroscopeModuleLike): boolean;

/** One entry per profiler followed on this thread. */
export function strategy(): ProfilerStrategy[];
