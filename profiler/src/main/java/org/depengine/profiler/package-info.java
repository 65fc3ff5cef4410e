/**
 * The depengine profiler. {@link org.depengine.profiler.Profiler} listens to an engine's op events
 * ({@link org.depengine.api.listen.OpListener}) and produces:
 * <ul>
 *   <li>a Chrome trace-event JSON file ({@link org.depengine.profiler.Profiler#dump}) for Perfetto and
 *   {@code chrome://tracing}: a process per device context, a thread per worker thread and per stream,
 *   a complete event per op, flow arrows along the dependencies;</li>
 *   <li>aggregate statistics per op name ({@link org.depengine.profiler.AggregateStats});</li>
 *   <li>JFR events ({@link org.depengine.profiler.OpEvent});</li>
 *   <li>a self-contained HTML timeline ({@link org.depengine.profiler.Profiler#writeHtml}).</li>
 * </ul>
 * Recording is lock-free and bounded: one fixed ring per recording thread.
 */
package org.depengine.profiler;
