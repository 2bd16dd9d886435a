/**
 * Ink signatures as vector paths (docs/api.md#what-completion-does step 2, §10): each stroke a smooth curve through its
 * points, stroked with round caps and joins.
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { ops } from '@libpdf/core';
import type { Operator } from './pageGeometry.js';

/** A rectangle in the coordinates being drawn in (y up), in points. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Keeps a coordinate fraction inside 0 to 1 (a point on the edge of the pad, or a rounding error). */
const clampFraction = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/**
 * Operators that stroke `strokes` (points as fractions 0 to 1 of `rect`, origin top-left, as the
 * signing pad recorded them over the field's rectangle) into `rect`, in black, `lineWidth` points
 * wide. Each stroke is a chain of quadratic Bézier segments through the midpoints of consecutive
 * points (the points themselves as control points), written as the equivalent cubic curves: smooth,
 * and never further from the recorded polyline than half a segment. A stroke whose points all
 * coincide draws a dot. The caller saves and restores the graphics state around them.
 */
export function inkOperators(strokes: readonly (readonly (readonly [number, number])[])[], rect: Rect, lineWidth: number): Operator[] {
  const operators: Operator[] = [ops.setStrokingGray(0), ops.setLineWidth(round(lineWidth)), ops.setLineCap(1), ops.setLineJoin(1)];
  const toPoint = ([fx, fy]: readonly [number, number]): [number, number] => [
    rect.x + clampFraction(fx) * rect.width,
    rect.y + rect.height - clampFraction(fy) * rect.height,
  ];
  for (const stroke of strokes) {
    const points = stroke.map(toPoint);
    const [first, ...rest] = points;
    if (first === undefined) continue;
    operators.push(ops.moveTo(round(first[0]), round(first[1])));
    if (rest.length <= 1) {
      const last = rest[0] ?? first;
      operators.push(ops.lineTo(round(last[0]), round(last[1])));
    } else {
      let current = first;
      for (let index = 1; index < points.length - 1; index++) {
        const control = points[index] ?? current;
        const next = points[index + 1] ?? control;
        const end: [number, number] = index === points.length - 2 ? next : [(control[0] + next[0]) / 2, (control[1] + next[1]) / 2];
        // The quadratic curve current → end with control point `control`, as a cubic (degree elevation).
        const c1: [number, number] = [current[0] + (2 / 3) * (control[0] - current[0]), current[1] + (2 / 3) * (control[1] - current[1])];
        const c2: [number, number] = [end[0] + (2 / 3) * (control[0] - end[0]), end[1] + (2 / 3) * (control[1] - end[1])];
        operators.push(ops.curveTo(round(c1[0]), round(c1[1]), round(c2[0]), round(c2[1]), round(end[0]), round(end[1])));
        current = end;
      }
    }
    operators.push(ops.stroke());
  }
  return operators;
}
