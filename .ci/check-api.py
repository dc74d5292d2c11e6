"""The public API names only public types (SPEC §7): read rustdoc's JSON of the crate (hidden
items documented too), walk what a user can reach from the crate root without `#[doc(hidden)]`
(re-exports, public modules, public fields and inherent methods), and fail when one of their
signatures names a type of this crate that the user cannot reach — a type they could hold but
not name, or read about nowhere."""

import json
import sys


def hidden(item):
    return any("doc(hidden)" in str(attr) for attr in item.get("attrs", []))


def main(path):
    doc = json.load(open(path))
    index, paths = doc["index"], doc["paths"]
    visible = set()

    def walk_module(module_id):
        for child in index[str(module_id)]["inner"]["module"]["items"]:
            item = index[str(child)]
            if item["visibility"] != "public" or hidden(item):
                continue
            inner = item["inner"]
            if "use" in inner:
                target = inner["use"].get("id")
                if target is not None:
                    visible.add(str(target))
                    if str(target) in index and "module" in index[str(target)]["inner"]:
                        walk_module(target)
            else:
                visible.add(str(child))
                if "module" in inner:
                    walk_module(child)

    walk_module(doc["root"])
    named = {}

    def collect(node, context):
        if isinstance(node, dict):
            if "resolved_path" in node:
                path_ = node["resolved_path"]
                named.setdefault(str(path_["id"]), (path_["path"], set()))[1].add(context)
            for value in node.values():
                collect(value, context)
        elif isinstance(node, list):
            for value in node:
                collect(value, context)

    def shown(item):
        return item["visibility"] == "public" and not hidden(item)

    todo, seen = list(visible), set()
    while todo:
        item_id = todo.pop()
        if item_id in seen or item_id not in index:
            continue
        seen.add(item_id)
        item = index[item_id]
        kind, inner = next(iter(item["inner"].items()))
        context = item.get("name") or item_id
        if kind == "struct":
            shape = inner["kind"]
            fields = []
            if "plain" in shape:
                fields = shape["plain"]["fields"]
            elif "tuple" in shape:
                fields = [f for f in shape["tuple"] if f is not None]
            for field in fields:
                field_item = index[str(field)]
                if shown(field_item):
                    collect(field_item["inner"], f"{context}.{field_item['name']}")
            todo += [str(i) for i in inner["impls"]]
        elif kind == "enum":
            for variant in inner["variants"]:
                collect(index[str(variant)]["inner"], f"{context}::{index[str(variant)]['name']}")
            todo += [str(i) for i in inner["impls"]]
        elif kind == "impl":
            if inner.get("trait") is not None:
                continue
            owner = inner.get("for", {}).get("resolved_path", {}).get("path", context)
            for member in inner["items"]:
                member_item = index[str(member)]
                if shown(member_item):
                    collect(member_item["inner"], f"{owner}::{member_item['name']}")
        elif kind in ("function", "type_alias", "constant", "static"):
            collect(inner, context)

    if len(visible) < 20 or not any(index.get(i, {}).get("name") == "Registry" for i in visible):
        sys.exit(f"check-api: only {len(visible)} public items found, Registry not among them: "
                 "the walk is broken (a new rustdoc JSON format?)")
    bad = [(p, contexts) for i, (p, contexts) in named.items()
           if i not in visible and paths.get(i, {"crate_id": 0})["crate_id"] == 0]
    for p, contexts in sorted(bad):
        print(f"check-api: {p} is not public, yet {', '.join(sorted(contexts))} names it",
              file=sys.stderr)
    if bad:
        sys.exit(1)
    print(f"check-api: {len(visible)} public items; every type their signatures name is public")


if __name__ == "__main__":
    main(sys.argv[1])
