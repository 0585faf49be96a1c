'use strict';

// BullMQ producers (customlabels/bullmq): add(queue, name, data, opts),
// addBulk(queue, jobs) and addFlow(flowProducer, flow, opts) attach the
// labels current when the job is added; withJobLabels(data, labels?) and
// withFlowLabels(flow, labels?) do it for any other path (job scheduler
// templates, FlowProducer#addBulk). As customlabels/worker does, the data is
// shallow-copied (the caller's object is never touched) and only
// plain-object data can carry labels; `undefined` data (queue.add('cleanup'))
// becomes `{ __customlabels }`, since BullMQ stores it as `{}` anyway.
// Arrays, primitives, null and class instances are sent unchanged. By
// default the labels attached are the current ones minus `queue` and `job`
// (the consumer sets those) and minus the OpenTelemetry ids (the producer's
// span ended long before the job runs, and a per-request id would make every
// job's set new).
//
// Why job.data keeps its `__customlabels` (customlabels/worker deletes it
// from the receiver's copy of a message): job.data is not a transient copy
// but the job's persisted record. The same Job object is what BullMQ emits to
// 'completed'/'failed' listeners, what QueueEvents and dashboards show (from
// Redis, where the property is in any case), and what job.updateData(data)
// writes back: a processor that does `job.updateData({ ...job.data, step })`
// keeps the labels for the job's retries, where a stripped copy would lose
// them. Code that must see the data without it (a strict schema) calls
// withoutJobLabels(job.data).

const { currentLabels } = require('../../index');
const { LABELS_KEY, withTaskLabels } = require('../worker');
const { PARCA } = require('../kit/limits');
const { addLimited, toObject, isPlainObject } = require('../kit/carried');
const { RESERVED, NOT_CARRIED, warn } = require('./labels');

const hasOwn = Object.prototype.hasOwnProperty;

// The labels a job carries: the current ones (or `labels`; null: none)
// within limits, or null if none.
function carriedLabels(labels) {
  if (labels === null) return null;
  const source = labels === undefined ? currentLabels() : toObject(labels);
  const carried = {};
  const problem = addLimited(carried, source, PARCA.MAX_LABELS - RESERVED.size, labels === undefined ? NOT_CARRIED : RESERVED, false);
  if (problem !== null) warn(problem);
  return Object.keys(carried).length === 0 ? null : carried;
}

function attach(data, carried) {
  if (carried === null) return data;
  if (data === undefined) return { [LABELS_KEY]: carried };
  return withTaskLabels(data, carried);
}

// Whether job data carries labels already (attached by hand, or a
// processor's retry): register's producer patches leave it as it is.
const carries = (data) => isPlainObject(data) && hasOwn.call(data, LABELS_KEY);

// The job data to add: `data` with the current labels (or `labels`; null:
// none) in LABELS_KEY (a shallow copy), or `data` itself when there are none
// or it cannot carry them.
function withJobLabels(data, labels) {
  return attach(data, carriedLabels(labels));
}

// `data` without LABELS_KEY (a shallow copy; `data` itself if it has none).
function withoutJobLabels(data) {
  if (!isPlainObject(data) || !hasOwn.call(data, LABELS_KEY)) return data;
  const copy = { ...data };
  delete copy[LABELS_KEY];
  return copy;
}

// jobs (queue.addBulk's) with `carried` attached to each job's data, except
// data that carries labels already.
function labelJobs(jobs, carried) {
  if (carried === null || !Array.isArray(jobs)) return jobs;
  return jobs.map((job) => (isPlainObject(job) && !carries(job.data) ? { ...job, data: attach(job.data, carried) } : job));
}

function labelFlow(node, carried) {
  if (!isPlainObject(node)) return node;
  const out = { ...node, data: attach(node.data, carried) };
  if (Array.isArray(node.children)) out.children = node.children.map((child) => labelFlow(child, carried));
  return out;
}

// A FlowProducer flow (a tree of jobs) with the current labels (or
// `labels`) attached to every job of it.
function withFlowLabels(flow, labels) {
  const carried = carriedLabels(labels);
  return carried === null ? flow : labelFlow(flow, carried);
}

// queue.add(name, data, opts) with the current labels attached.
function add(queue, name, data, opts) {
  return queue.add(name, withJobLabels(data), opts);
}

// queue.addBulk(jobs) with the current labels attached to each job's data.
function addBulk(queue, jobs) {
  return queue.addBulk(labelJobs(jobs, carriedLabels()));
}

// flowProducer.add(flow, opts) with the current labels on every job.
function addFlow(flowProducer, flow, opts) {
  return flowProducer.add(withFlowLabels(flow), opts);
}

module.exports = { carriedLabels, carries, withJobLabels, withoutJobLabels, labelJobs, withFlowLabels, add, addBulk, addFlow };
