//! A layered (Sugiyama-style) drawing layout, written for the report's graph picture: cycles
//! broken by reversing the back edges of a depth-first search from the entry, nodes layered by
//! longest path, long edges split by dummy nodes, crossings reduced by barycenter sweeps (the
//! order with the fewest crossings seen is kept), and x coordinates pulled towards the mean of
//! each node's neighbours while keeping the layer's order and spacing.
//!
//! It is deterministic (no hashing order, no clock: the same input gives the same numbers) and
//! bounded for large graphs: at most [`SWEEPS`] sweeps, each O(E log E) (sorting by barycenter,
//! counting crossings with a Fenwick tree), and at most [`MAX_DUMMIES`] dummy nodes — edges past
//! that budget are drawn straight and take no part in crossing reduction.

/// Down-and-up barycenter sweeps at most.
pub const SWEEPS: usize = 6;
/// Dummy nodes at most (the rest of the long edges are drawn straight).
pub const MAX_DUMMIES: usize = 200_000;
/// Passes of the coordinate assignment.
const COORDINATE_PASSES: usize = 4;
/// Horizontal space between two neighbours in a layer, and the width of a dummy.
const H_GAP: f64 = 28.0;
const DUMMY_WIDTH: f64 = 8.0;
/// Vertical space between two layers.
const V_GAP: f64 = 56.0;
/// Margin around the drawing.
pub const MARGIN: f64 = 20.0;

/// A node's box: width and height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Size {
    pub width: f64,
    pub height: f64,
}

/// The laid-out drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Each node's centre.
    pub centres: Vec<(f64, f64)>,
    /// Each node's layer (0 at the top).
    pub layers: Vec<usize>,
    /// For each input edge, the points it passes, from its source's border to its target's
    /// border (empty for a self-loop, which the renderer draws beside its node).
    pub routes: Vec<Vec<(f64, f64)>>,
    /// For each input edge, whether it was reversed to break a cycle (it points upwards).
    pub reversed: Vec<bool>,
    pub width: f64,
    pub height: f64,
}

/// Lay out `sizes.len()` nodes joined by `edges` (source, target), the search for back edges
/// starting at `entry` (then at every node not yet seen, in index order). Edges naming a node out
/// of range are ignored (drawn nowhere).
pub fn layout(sizes: &[Size], edges: &[(usize, usize)], entry: Option<usize>) -> Layout {
    let n = sizes.len();
    let valid = |&(a, b): &(usize, usize)| a < n && b < n;
    let reversed = back_edges(n, edges, entry);
    // The acyclic edges (self-loops and out-of-range ones left out).
    let mut dag: Vec<(usize, usize, usize)> = Vec::new(); // (from, to, input edge)
    for (e, &(a, b)) in edges.iter().enumerate() {
        if !valid(&(a, b)) || a == b {
            continue;
        }
        dag.push(if reversed[e] { (b, a, e) } else { (a, b, e) });
    }
    let layers = longest_path_layers(n, &dag);
    let discovery = discovery_order(n, edges, entry);

    // The layered graph: real nodes 0..n, dummies after; each segment joins layer l to l + 1.
    let mut layer_of: Vec<usize> = layers.clone();
    let mut width_of: Vec<f64> = sizes.iter().map(|s| s.width).collect();
    let mut key: Vec<(usize, usize)> = discovery.iter().map(|&d| (d, 0)).collect();
    let mut segments: Vec<(usize, usize)> = Vec::new();
    // Per input edge: its chain of layered nodes from DAG source to DAG target (empty: straight).
    let mut chains: Vec<Vec<usize>> = vec![Vec::new(); edges.len()];
    let mut dummies = 0usize;
    for &(a, b, e) in &dag {
        let span = layers[b] - layers[a];
        if span == 1 {
            segments.push((a, b));
            chains[e] = vec![a, b];
        } else if dummies + span - 1 <= MAX_DUMMIES {
            let mut chain = vec![a];
            let mut prev = a;
            for k in 1..span {
                let d = layer_of.len();
                layer_of.push(layers[a] + k);
                width_of.push(DUMMY_WIDTH);
                key.push((discovery[a], k));
                segments.push((prev, d));
                chain.push(d);
                prev = d;
            }
            segments.push((prev, b));
            chain.push(b);
            chains[e] = chain;
            dummies += span - 1;
        }
    }
    let total = layer_of.len();
    let layer_count = layer_of.iter().max().map_or(0, |&m| m + 1);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); total];
    for &(a, b) in &segments {
        succs[a].push(b);
        preds[b].push(a);
    }
    // Initial order: by discovery (a dummy by its edge's source), ties by index.
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); layer_count];
    for v in 0..total {
        rows[layer_of[v]].push(v);
    }
    for row in &mut rows {
        row.sort_by_key(|&v| (key[v], v));
    }
    let rows = reduce_crossings(rows, &preds, &succs, total);

    // Coordinates.
    let mut layer_height = vec![0.0f64; layer_count];
    for v in 0..n {
        layer_height[layer_of[v]] = layer_height[layer_of[v]].max(sizes[v].height);
    }
    let mut layer_y = vec![0.0f64; layer_count];
    let mut y = MARGIN;
    for l in 0..layer_count {
        let h = layer_height[l].max(DUMMY_WIDTH);
        layer_y[l] = y + h / 2.0;
        y += h + V_GAP;
    }
    let x = assign_x(&rows, &preds, &succs, &width_of);
    let (min_left, max_right) =
        (0..total).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (
                lo.min(x[v] - width_of[v] / 2.0),
                hi.max(x[v] + width_of[v] / 2.0),
            )
        });
    let shift = if min_left.is_finite() {
        MARGIN - min_left
    } else {
        0.0
    };
    let xs: Vec<f64> = x.iter().map(|x| x + shift).collect();
    let width = if max_right.is_finite() {
        max_right - min_left + 2.0 * MARGIN
    } else {
        2.0 * MARGIN
    };
    let height = (y - V_GAP + MARGIN).max(2.0 * MARGIN);
    let centres: Vec<(f64, f64)> = (0..n).map(|v| (xs[v], layer_y[layer_of[v]])).collect();

    // Routes: border of the source, the dummies, border of the target.
    let mut routes = vec![Vec::new(); edges.len()];
    for &(a, b, e) in &dag {
        let mut points: Vec<(f64, f64)> = if chains[e].is_empty() {
            vec![centres[a], centres[b]]
        } else {
            chains[e]
                .iter()
                .map(|&v| (xs[v], layer_y[layer_of[v]]))
                .collect()
        };
        // DAG edges point down: leave the source's bottom, enter the target's top.
        if let Some(first) = points.first_mut() {
            first.1 += sizes[a].height / 2.0;
        }
        if let Some(last) = points.last_mut() {
            last.1 -= sizes[b].height / 2.0;
        }
        if reversed[e] {
            points.reverse();
        }
        routes[e] = points;
    }
    Layout {
        centres,
        layers,
        routes,
        reversed,
        width,
        height,
    }
}

/// The back edges of a depth-first search from `entry`, then from each unseen node in order.
fn back_edges(n: usize, edges: &[(usize, usize)], entry: Option<usize>) -> Vec<bool> {
    let out = out_edges(n, edges);
    let mut reversed = vec![false; edges.len()];
    // 0 unseen, 1 on the stack, 2 done.
    let mut state = vec![0u8; n];
    let roots = entry.filter(|&e| e < n).into_iter().chain(0..n);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in roots {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        stack.push((root, 0));
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&e) = out[v].get(*next) {
                *next += 1;
                let w = edges[e].1;
                match state[w] {
                    0 => {
                        state[w] = 1;
                        stack.push((w, 0));
                    }
                    1 if w != v => reversed[e] = true,
                    _ => {}
                }
            } else {
                state[v] = 2;
                stack.pop();
            }
        }
    }
    reversed
}

/// For each node, the indices of its outgoing edges (in input order).
fn out_edges(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); n];
    for (e, &(a, b)) in edges.iter().enumerate() {
        if a < n && b < n {
            out[a].push(e);
        }
    }
    out
}

/// Each node's rank in a breadth-first search from the entry, then the rest in index order: the
/// initial left-to-right order of a layer (the entry's first choices on the left).
fn discovery_order(n: usize, edges: &[(usize, usize)], entry: Option<usize>) -> Vec<usize> {
    let out = out_edges(n, edges);
    let mut rank = vec![usize::MAX; n];
    let mut next = 0;
    let mut queue = std::collections::VecDeque::new();
    for root in entry.filter(|&e| e < n).into_iter().chain(0..n) {
        if rank[root] != usize::MAX {
            continue;
        }
        rank[root] = next;
        next += 1;
        queue.push_back(root);
        while let Some(v) = queue.pop_front() {
            for &e in &out[v] {
                let w = edges[e].1;
                if rank[w] == usize::MAX {
                    rank[w] = next;
                    next += 1;
                    queue.push_back(w);
                }
            }
        }
    }
    rank
}

/// Longest-path layering of an acyclic edge list (Kahn's order): a node sits one layer below its
/// lowest predecessor; sources at layer 0.
fn longest_path_layers(n: usize, dag: &[(usize, usize, usize)]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b, _) in dag {
        indegree[b] += 1;
        out[a].push(b);
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).rev().collect();
    while let Some(v) = ready.pop() {
        for &w in &out[v] {
            layer[w] = layer[w].max(layer[v] + 1);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(w);
            }
        }
    }
    layer
}

/// Barycenter sweeps (down, then up), keeping the order with the fewest crossings.
fn reduce_crossings(
    mut rows: Vec<Vec<usize>>,
    preds: &[Vec<usize>],
    succs: &[Vec<usize>],
    total: usize,
) -> Vec<Vec<usize>> {
    let mut position = vec![0usize; total];
    let place = |rows: &[Vec<usize>], position: &mut [usize]| {
        for row in rows {
            for (i, &v) in row.iter().enumerate() {
                position[v] = i;
            }
        }
    };
    place(&rows, &mut position);
    let mut best = rows.clone();
    let mut best_crossings = crossings(&rows, succs, &position);
    for _ in 0..SWEEPS {
        if best_crossings == 0 {
            break;
        }
        for row in rows.iter_mut().skip(1) {
            sort_by_barycenter(row, preds, &mut position);
        }
        for l in (0..rows.len().saturating_sub(1)).rev() {
            sort_by_barycenter(&mut rows[l], succs, &mut position);
        }
        let c = crossings(&rows, succs, &position);
        if c < best_crossings {
            best_crossings = c;
            best = rows.clone();
        } else {
            // No gain this sweep: a further sweep from the same order would repeat it.
            break;
        }
    }
    best
}

/// Order a row by the mean position of each node's neighbours in the adjacent row (a node with
/// none keeps its place), then renumber the row's positions.
fn sort_by_barycenter(row: &mut [usize], neighbours: &[Vec<usize>], position: &mut [usize]) {
    let mut keyed: Vec<(f64, usize, usize)> = row
        .iter()
        .map(|&v| {
            let ns = &neighbours[v];
            let bary = if ns.is_empty() {
                position[v] as f64
            } else {
                ns.iter().map(|&u| position[u] as f64).sum::<f64>() / ns.len() as f64
            };
            (bary, position[v], v)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (i, (_, _, v)) in keyed.into_iter().enumerate() {
        row[i] = v;
        position[v] = i;
    }
}

/// Crossings between every pair of adjacent rows (Barth–Jünger–Mutzel: sort the segments by
/// upper position, count inversions of the lower positions with a Fenwick tree).
fn crossings(rows: &[Vec<usize>], succs: &[Vec<usize>], position: &[usize]) -> u64 {
    let mut total = 0u64;
    for pair in rows.windows(2) {
        let (upper, lower) = (&pair[0], &pair[1]);
        let mut ends: Vec<(usize, usize)> = Vec::new();
        for &u in upper {
            for &w in &succs[u] {
                ends.push((position[u], position[w]));
            }
        }
        ends.sort_unstable();
        let mut tree = vec![0u64; lower.len() + 1];
        for (seen, &(_, p)) in (0u64..).zip(&ends) {
            // Segments already added whose lower end lies right of p cross this one.
            let mut i = p + 1;
            let mut not_right = 0u64;
            while i > 0 {
                not_right += tree[i];
                i &= i - 1;
            }
            total += seen - not_right;
            let mut i = p + 1;
            while i < tree.len() {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

/// X coordinates: packed left to right, then pulled towards the mean x of the neighbours in the
/// layer above (downward passes) or below (upward passes), keeping order and spacing: each pass
/// places a row twice — pushing right from its left end and left from its right end — and takes
/// the mean of the two, which keeps every gap.
fn assign_x(
    rows: &[Vec<usize>],
    preds: &[Vec<usize>],
    succs: &[Vec<usize>],
    width: &[f64],
) -> Vec<f64> {
    let mut x = vec![0.0f64; width.len()];
    for row in rows {
        let mut cursor = 0.0;
        for &v in row {
            x[v] = cursor + width[v] / 2.0;
            cursor += width[v] + H_GAP;
        }
    }
    let gap = |a: usize, b: usize| (width[a] + width[b]) / 2.0 + H_GAP;
    for pass in 0..COORDINATE_PASSES {
        let down = pass % 2 == 0;
        let order: Vec<usize> = if down {
            (1..rows.len()).collect()
        } else {
            (0..rows.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let row = &rows[l];
            let neighbours = if down { preds } else { succs };
            let desired: Vec<f64> = row
                .iter()
                .map(|&v| {
                    let ns = &neighbours[v];
                    if ns.is_empty() {
                        x[v]
                    } else {
                        ns.iter().map(|&u| x[u]).sum::<f64>() / ns.len() as f64
                    }
                })
                .collect();
            let k = row.len();
            let mut left = desired.clone();
            for i in 1..k {
                left[i] = left[i].max(left[i - 1] + gap(row[i - 1], row[i]));
            }
            let mut right = desired;
            for i in (0..k.saturating_sub(1)).rev() {
                right[i] = right[i].min(right[i + 1] - gap(row[i], row[i + 1]));
            }
            for i in 0..k {
                x[row[i]] = (left[i] + right[i]) / 2.0;
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxes(n: usize) -> Vec<Size> {
        vec![
            Size {
                width: 80.0,
                height: 36.0
            };
            n
        ]
    }

    #[test]
    fn a_chain_is_one_column_with_rising_layers() {
        let l = layout(&boxes(3), &[(0, 1), (1, 2)], Some(0));
        assert_eq!(l.layers, vec![0, 1, 2]);
        assert!(
            l.centres
                .iter()
                .all(|c| (c.0 - l.centres[0].0).abs() < 1e-9)
        );
        assert!(l.reversed.iter().all(|r| !r));
    }

    #[test]
    fn a_cycle_is_broken_at_its_back_edge_only() {
        let l = layout(&boxes(3), &[(0, 1), (1, 2), (2, 1)], Some(0));
        assert_eq!(l.reversed, vec![false, false, true]);
        assert_eq!(l.layers, vec![0, 1, 2]);
        // The reversed edge is routed from node 2 up to node 1.
        let route = &l.routes[2];
        assert!(route.first().unwrap().1 > route.last().unwrap().1);
    }

    #[test]
    fn long_edges_pass_through_dummies_and_nodes_never_overlap() {
        // 0 → 1 → 2 → 3 and 0 → 3 (spans three layers).
        let edges = [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2)];
        let l = layout(&boxes(4), &edges, Some(0));
        assert_eq!(l.routes[3].len(), 4, "source, two dummies, target");
        for a in 0..4 {
            for b in 0..4 {
                if a != b && l.layers[a] == l.layers[b] {
                    assert!((l.centres[a].0 - l.centres[b].0).abs() >= 80.0);
                }
            }
        }
    }

    #[test]
    fn barycenter_removes_an_avoidable_crossing() {
        // Upper row [0, 1], lower row [3, 2] with 0 → 2 and 1 → 3: one crossing, which one
        // downward sweep removes.
        let rows = vec![vec![0, 1], vec![3, 2]];
        let succs = vec![vec![2], vec![3], vec![], vec![]];
        let preds = vec![vec![], vec![], vec![0], vec![1]];
        let position = vec![0, 1, 1, 0];
        assert_eq!(crossings(&rows, &succs, &position), 1);
        let best = reduce_crossings(rows, &preds, &succs, 4);
        assert_eq!(best, vec![vec![0, 1], vec![2, 3]]);
    }

    #[test]
    fn the_crossing_count_is_exact_on_a_small_case() {
        // Upper row [0, 1], lower row [2, 3]: 0 → 3 and 1 → 2 cross once.
        let rows = vec![vec![0, 1], vec![2, 3]];
        let succs = vec![vec![3], vec![2], vec![], vec![]];
        let position = vec![0, 1, 0, 1];
        assert_eq!(crossings(&rows, &succs, &position), 1);
        let succs = vec![vec![2, 3], vec![2, 3], vec![], vec![]];
        assert_eq!(crossings(&rows, &succs, &position), 1);
    }

    #[test]
    fn layout_is_deterministic_and_handles_self_loops_and_bad_edges() {
        let edges = [(0, 0), (0, 1), (1, 9), (1, 0)];
        let a = layout(&boxes(2), &edges, Some(0));
        let b = layout(&boxes(2), &edges, Some(0));
        assert_eq!(a, b);
        assert!(a.routes[0].is_empty() && a.routes[2].is_empty());
        assert!(layout(&[], &[], None).routes.is_empty());
    }
}
