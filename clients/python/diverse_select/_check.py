"""The checks of the typed settings (_generated.py) against the server's key
table, run on construction, with errors that name the setting and its allowed
values; and the settings' wire form, the server's key names."""

import json
import math
from dataclasses import fields
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, Type

if TYPE_CHECKING:  # the generated classes import this module
    from ._generated import Selection

Spec = Dict[str, Any]


class SettingsError(ValueError):
    """A setting the server would refuse; ``key`` is its wire name (tokenBudget), ``arg`` its Python
    argument (token_budget; the wire name where it has none)."""

    def __init__(self, key: str, message: str, arg: Optional[str] = None):
        named = '"%s"' % key if arg in (None, key) else '"%s" (argument %s)' % (key, arg)
        super().__init__("diverse-select: %s %s" % (named, message))
        self.key = key
        self.arg = arg or key


def _num(f: float) -> str:
    return str(int(f)) if float(f).is_integer() else repr(f)


def _allowed(o: Dict[str, Any]) -> str:
    if o.get("enum"):
        return "one of " + ", ".join(o["enum"])
    kind = o["kind"]
    if kind == "bool":
        return "true or false"
    if kind == "strings":
        return "a list of strings"
    if kind not in ("int", "float"):
        return "a string"
    lo = "(-inf" if o.get("min") is None else ("(" if o.get("minOpen") else "[") + _num(o["min"])
    hi = "inf)" if o.get("max") is None else _num(o["max"]) + (")" if o.get("maxOpen") else "]")
    return "%s in %s, %s" % ("an integer" if kind == "int" else "a number", lo, hi)


def _why(o: Dict[str, Any], v: Any) -> str:
    """Why v is not a value of o, or ''."""
    kind, ok = o["kind"], True
    if kind in ("int", "float"):
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if ok and kind == "int":
            ok = float(v).is_integer()
        if ok and o.get("min") is not None:
            ok = v > o["min"] if o.get("minOpen") else v >= o["min"]
        if ok and o.get("max") is not None:
            ok = v < o["max"] if o.get("maxOpen") else v <= o["max"]
    elif kind == "bool":
        ok = isinstance(v, bool)
    elif kind == "strings":
        ok = isinstance(v, (list, tuple)) and all(isinstance(s, str) for s in v)
    else:
        ok = isinstance(v, str) and (not o.get("enum") or v in o["enum"])
    return "" if ok else "is %s; allowed: %s" % (_show(v), _allowed(o))


def _show(v: Any) -> str:
    """v as JSON, cut after 80 characters (a value may be as long as a caller makes it)."""
    text = json.dumps(v, ensure_ascii=False, default=repr)
    return text if len(text) <= 80 else "%s... (%d characters)" % (text[:80], len(text))


def _own(spec: Spec, strategy: str, name: str) -> Optional[Dict[str, Any]]:
    """The strategy's own entry of parameter name, or None."""
    return next((p for p in spec["strategies"].get(strategy) or [] if p["name"] == name), None)


def _check_params(spec: Spec, params: Mapping[str, Any]) -> None:
    """Parameters for the collection's strategy: each must be a value of a
    strategy that takes it (the server checks it against the collection's)."""
    if not isinstance(params, Mapping):
        raise SettingsError("params", "is a %s; allowed: a dict of strategy parameters by their wire names"
                            % type(params).__name__)
    keys = {k["name"] for k in spec["keys"]}
    union = {p["name"]: p for p in spec["params"]}
    for name, v in params.items():
        if name in keys:
            raise SettingsError(name, "is a setting of its own, not a strategy parameter; allowed in params: "
                                + ", ".join(sorted(union)), "params")
        if name not in union:
            raise SettingsError(name, "is not a strategy parameter; allowed in params: " + ", ".join(sorted(union)),
                                "params")
        strategies = union[name]["strategies"]
        whys = [_why(p, v) for p in (_own(spec, s, name) for s in strategies) if p is not None]
        if all(whys):
            raise SettingsError(name, "for strategy %s %s" % (" or ".join(strategies), whys[0]), "params")


def validate(spec: Spec, py_to_wire: Mapping[str, str], sel: "Selection") -> None:
    """Raise SettingsError for a field of sel the server would refuse: a
    common setting out of its range, a parameter out of its strategy's."""
    keys = {k["name"]: k for k in spec["keys"]}
    for f in fields(sel):
        v = getattr(sel, f.name)
        if v is None:
            continue
        if f.name == "params":
            _check_params(spec, v)
            continue
        name = py_to_wire[f.name]
        if name in keys:
            why = _why(keys[name], v)
        else:
            own = _own(spec, str(sel.strategy), name)
            assert own is not None, "the generated %s has a field %s its strategy lacks" % (type(sel).__name__, f.name)
            why = _why(own, v)
            why = why and "for strategy %s %s" % (sel.strategy, why)
        if why:
            raise SettingsError(name, why, f.name)


def wire(py_to_wire: Mapping[str, str], sel: "Selection") -> Dict[str, Any]:
    """The set settings of sel by the server's key names, its strategy and params included."""
    out: Dict[str, Any] = {"strategy": sel.strategy} if sel.strategy else {}
    for f in fields(sel):
        v = getattr(sel, f.name)
        if v is None:
            continue
        if f.name == "params":
            out.update(v)
        else:
            out[py_to_wire[f.name]] = list(v) if isinstance(v, tuple) else v
    return out


def show(sel: "Selection") -> str:
    """sel as the factory call that makes it, with the set arguments only."""
    args = ["%s=%r" % (f.name, getattr(sel, f.name)) for f in fields(sel) if getattr(sel, f.name) is not None]
    return "Select.%s(%s)" % (sel.strategy or "configured", ", ".join(args))


def from_wire(spec: Spec, py_to_wire: Mapping[str, str], options: Mapping[str, Any],
              classes: Mapping[str, Type["Selection"]], configured: Type["Selection"]) -> "Selection":
    """The typed settings of options (the server's key names): the class of
    its strategy, or configured, which takes the parameters in params."""
    if not isinstance(options, Mapping):
        raise SettingsError("options", "is a %s; allowed: a dict of settings by their wire names" % type(options).__name__)
    wire_to_py = {w: p for p, w in py_to_wire.items()}
    rest = dict(options)
    strategy = rest.pop("strategy", None)
    if strategy is not None and strategy not in classes:
        raise SettingsError("strategy", _why(spec["keys"][0], strategy) or "is not a built-in strategy")
    cls = classes[strategy] if strategy is not None else configured
    own = {f.name for f in fields(cls)}
    kwargs: Dict[str, Any] = {}
    params: Dict[str, Any] = {}
    for name, v in rest.items():
        py = wire_to_py.get(name)
        if py is None:
            raise SettingsError(name, "is not a per-query setting; allowed: " + ", ".join(sorted(wire_to_py)))
        if py in own:
            kwargs[py] = v
        elif strategy is None:
            params[name] = v
        else:
            theirs = [p["name"] for p in spec["strategies"].get(strategy) or []]
            raise SettingsError(name, 'is not a parameter of strategy "%s"; its parameters: %s'
                                % (strategy, ", ".join(theirs) or "(none)"), py)
    if params:
        kwargs["params"] = params
    return cls(**kwargs)
