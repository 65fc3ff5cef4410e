/**
 * The depengine profiler. {@link org.depengine.profiler.Profiler} listens to an engine's op events
 * ({@link org.depengine.api.listen.OpListener}) and produces:
 * <ul>
 *   <li>a Chrome trace-event JSON file ({@link org.depengine.profiler.Profiler#dump}) for Perfetto and
 *   {@code chrome://tracing}: a process per device context, a thread per worker thread and per stream,
 *   a complete event per op (the members of a bulk's merged op nested inside it), flow arrows along
 *   the dependencies;</li>
 *   <li>aggregate statistics per op name ({@link org.depengine.profiler.AggregateStats}), bulk members
 *   under their own names;</li>
 *   <li>JFR events ({@link org.depengine.profiler.OpEvent}, {@link org.depengine.profiler.BulkMemberEvent});</li>
 *   <li>a self-contained HTML timeline ({@link org.depengine.profiler.Profiler#writeHtml}).</li>
 * </ul>
 * Recording is lock-free and bounded: one fixed ring per recording thread.
 */
package org.depengine.profiler;
