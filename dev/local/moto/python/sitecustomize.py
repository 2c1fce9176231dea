# Loaded by the moto_server that package moto starts (PYTHONPATH points at
# this directory), before moto itself. It changes how moto spends its time,
# never what it answers (docs/performance.md, "moto's memory and speed"):
#
# 1. How a DynamoDB TransactWriteItems keeps what it needs to roll back.
#    moto 5 deep-copies every table a transaction names before applying it, so
# that a failed transaction can put the tables back: the cost of each
# TransactWriteItems grows with the size of the tables, not of the
# transaction. The local stack writes every stage's success in a
# transaction (the item and its body's sibling), so with 500 items in the
# Items and Bodies tables each transaction copied about a thousand items,
# moto spent ~23 ms of CPU a DynamoDB request, and its resident memory grew
# past 4 GB (docs/performance.md, "moto's memory").
#
# Here a transaction copies only the items it names, and a failed one puts
# those back: the same all-or-nothing result, at the cost of the
# transaction's own items.
#
# 2. The per-request log line of werkzeug's development server, written to
#    moto's stderr before each response: about a third of moto's time under
#    load, and a response held back whenever the reader of that pipe is slow.
#    Warnings and errors are still logged.
#
# 3. Connections: werkzeug's server speaks HTTP/1.0, so every request was a
#    new TCP connection and a new thread. It speaks HTTP/1.1 here and keeps
#    connections alive (the local stack's front proxy reuses them), with
#    Nagle's algorithm off: a response goes out as its headers and then its
#    body, and on a kept-alive connection the body waited for the client's
#    delayed acknowledgement of the headers (up to 40 ms a response, while
#    the front holds every other DynamoDB request back).
#
# 4. moto asks the file system for its list of services on every request
#    that names its service by the Authorization header alone (every SDK
#    request): the list is read once.
#
# 5. How moto 5.2.1 walks an update expression (docs/performance.md, "Where
#    moto's DynamoDB time goes"); patched only on that version, whose code
#    this was read from:
#    a. each of the ten passes that validate and apply an UpdateExpression
#       rebuilt its table of node types for every node it visited: the
#       table is built once a pass, and the pass visits the same nodes in
#       the same order and calls the same processors;
#    b. the pass that allows one SET, REMOVE, ADD clause each searched the
#       whole subtree below every node (quadratic in the expression): the
#       counts are kept per node, and the same node raises the same error;
#    c. every UpdateItem parsed its expression twice and deep-copied the
#       tree for validation: a parsed expression is kept by its text (parsed
#       again only if it failed) and the validator's copy is rebuilt from a
#       pickle of the tree as parsed — the same tree, at a fifth of a
#       generic deep copy's cost.
#    d. moto's response serializer walks the botocore model for every
#       attribute value of every item it returns: for each of the ten members
#       of an AttributeValue it tries half a dozen spellings of the member's
#       name. An attribute value made only of S, N, BOOL, NULL, SS, NS, M and
#       L (each of the type JSON gives it) serializes to itself, so it is
#       copied as it is; any other (a binary, an odd type) goes the model's
#       way.
#    e. every condition expression was lexed with its patterns compiled (a
#       regular-expression cache lookup) anew for each token, twice per
#       UpdateItem: the tokens of an expression are kept by its text, and
#       each parse gets fresh ones, as lexed (an expression that fails to lex
#       fails every time).
#    Each is held to moto as installed by dev/local/moto's tests
#    (TestExpressionPatchesAnswerAsInstalled).
import copy as _copy
import logging as _logging


def _patch():
    try:
        from moto.dynamodb import models as _models
        from moto.dynamodb.models.dynamo_type import DynamoType
        from moto.dynamodb.models.table import Table
    except Exception:  # not the moto this was written for: leave it be
        return
    original = _models.DynamoDBBackend.transact_write_items
    if getattr(original, "_triage_patched", False):
        return

    class _TablesAreNotCopied:
        """The module's `copy`, except that a Table is not deep-copied."""

        def __getattr__(self, name):
            return getattr(_copy, name)

        def deepcopy(self, x, memo=None):
            if isinstance(x, Table):
                return x
            return _copy.deepcopy(x, memo)

    def _key(table, op_type, op):
        attrs = op.get("Item") if op_type == "Put" else op.get("Key")
        if not isinstance(attrs, dict) or table.hash_key_attr not in attrs:
            return None
        hash_value = DynamoType(attrs[table.hash_key_attr])
        range_value = None
        if table.range_key_attr is not None:
            if table.range_key_attr not in attrs:
                return None
            range_value = DynamoType(attrs[table.range_key_attr])
        return hash_value, range_value

    def transact_write_items(self, transact_items):
        saved = []
        for item in transact_items if isinstance(transact_items, list) else []:
            if not isinstance(item, dict) or len(item) != 1:
                continue
            op_type, op = next(iter(item.items()))
            table = self.tables.get(op.get("TableName")) if isinstance(op, dict) else None
            if table is None:
                continue
            key = _key(table, op_type, op)
            if key is None:
                continue
            try:
                current = table.get_item(*key)
            except Exception:
                continue
            saved.append((table, key, _copy.deepcopy(current) if current is not None else None))
        try:
            return original(self, transact_items)
        except BaseException:
            for table, (hash_value, range_value), old in reversed(saved):
                if old is None:
                    table.delete_item(hash_value, range_value)
                elif range_value is not None:
                    table.items[hash_value][range_value] = old
                else:
                    table.items[hash_value] = old
            raise

    transact_write_items._triage_patched = True
    _models.copy = _TablesAreNotCopied()
    _models.DynamoDBBackend.transact_write_items = transact_write_items
    import sys
    print(PATCHED, file=sys.stderr, flush=True)


# EXPRESSIONS_PATCHED is the line moto's log carries when the expression
# patches (5 above) are in force.
EXPRESSIONS_PATCHED = "triage: moto's update expressions are parsed once and walked in linear time"


def _patch_expressions():
    try:
        import moto
        from moto.dynamodb.parsing import ast_nodes, expressions, validators
    except Exception:
        return
    if getattr(moto, "__version__", None) != "5.2.1":
        return  # written against 5.2.1's code: leave another version be
    import pickle
    from collections import deque as _deque

    Node = ast_nodes.Node
    DFT = ast_nodes.DepthFirstTraverser
    if getattr(DFT.traverse, "_triage_patched", False):
        return
    generic = (DFT.traverse_node_recursively, DFT.process, DFT.nodes_to_be_processed)

    # a. One table of node types a pass.
    def traverse(self, node):
        cls = type(self)
        if (cls.traverse_node_recursively, cls.process, cls.nodes_to_be_processed) != generic:
            return self.traverse_node_recursively(node)
        processing = self._processing_map()
        kinds = tuple(processing)
        processors = tuple(processing.items())
        pre = self.pre_processing_of_child

        def visit(node, child_id):
            # DepthFirstTraverser.traverse_node_recursively, line for line.
            if isinstance(node, Node):
                parent_node = node.parent
                if node.children is not None:
                    for i, child_node in enumerate(node.children):
                        pre(node, i)
                        visit(child_node, i)
                if isinstance(node, kinds):
                    for kind, processor in processors:
                        if isinstance(node, kind):
                            node = processor(node)
                            break
                    else:  # process() found no processor
                        node = None
                    node.parent = parent_node
                    if parent_node:
                        parent_node.children[child_id] = node
            return node

        return visit(node, -1)

    traverse._triage_patched = True

    # b. Clause counts kept per node. find_clauses([T]) on a node counts its
    # children of type T and descends into its other Expression and
    # UpdateExpressionFunction children; so does count, once per node.
    Expression, Function = ast_nodes.Expression, ast_nodes.UpdateExpressionFunction
    Add = ast_nodes.UpdateExpressionAddClause
    Remove = ast_nodes.UpdateExpressionRemoveClause
    Set = ast_nodes.UpdateExpressionSetClause

    def count(memo, node, kind):
        key = (id(node), kind)
        n = memo.get(key)
        if n is None:
            n = 0
            for child in node.children or []:
                if type(child) is kind:
                    n += 1
                elif isinstance(child, Expression) or isinstance(child, Function):
                    n += count(memo, child, kind)
            memo[key] = n
        return n

    def verify_action_counts(self, node):
        memo = self.__dict__.setdefault("_triage_counts", {})
        if count(memo, node, Add) > 1:
            raise validators.TooManyClauses("ADD")
        if count(memo, node, Remove) > 1:
            raise validators.TooManyClauses("REMOVE")
        if count(memo, node, Set) > 1:
            raise validators.TooManyClauses("SET")
        return node

    # c. A parsed expression kept by its text, copied from its pickle.
    Parser = expressions.UpdateExpressionParser
    make = Parser.make.__func__
    parsed = {}  # expression text -> tree
    pickled = {}  # id(tree) -> (tree, its pickle)
    lock = __import__("threading").Lock()

    def cached_make(cls, expression_str):
        if cls is not Parser or not isinstance(expression_str, str):
            return make(cls, expression_str)
        tree = parsed.get(expression_str)
        if tree is not None:
            return tree
        tree = make(cls, expression_str)  # an invalid expression raises here, every time
        try:
            blob = pickle.dumps(tree, pickle.HIGHEST_PROTOCOL)
        except Exception:
            return tree
        with lock:
            if len(parsed) >= 256:
                parsed.clear()
                pickled.clear()
            parsed[expression_str] = tree
            pickled[id(tree)] = (tree, blob)
        return tree

    def deepcopy(x, memo=None):
        entry = pickled.get(id(x))
        if entry is not None and entry[0] is x and not memo:
            return pickle.loads(entry[1])
        return _copy.deepcopy(x, memo)

    # d. Plain attribute values copied as they are.
    try:
        from moto.core import serialize as _serialize
    except Exception:
        _serialize = None
    scalar = {"S": str, "N": str, "BOOL": bool, "NULL": bool}
    strings = ("SS", "NS")

    def plain(v):
        # A copy of v when it serializes to itself, else None.
        if type(v) is not dict or len(v) != 1:
            return None
        (k, x), = v.items()
        t = scalar.get(k)
        if t is not None:
            return {k: x} if type(x) is t else None
        if k in strings:
            if type(x) is not list or any(type(e) is not str for e in x):
                return None
            return {k: list(x)}
        if k == "M":
            if type(x) is not dict:
                return None
            out = {}
            for name, e in x.items():
                c = plain(e)
                if c is None or type(name) is not str:
                    return None
                out[name] = c
            return {k: out}
        if k == "L":
            if type(x) is not list:
                return None
            out = []
            for e in x:
                c = plain(e)
                if c is None:
                    return None
                out.append(c)
            return {k: out}
        return None

    if _serialize is not None:
        JSON = _serialize.BaseJSONSerializer
        structure = JSON._serialize_type_structure

        def serialize_structure(self, serialized, value, shape, key):
            if key and getattr(shape, "name", None) == "AttributeValue" and not shape.is_document_type:
                picker = getattr(self, "_value_picker", None)
                if not getattr(picker, "response_transformers", None):
                    c = plain(value)
                    if c is not None:
                        self._default_serialize(serialized, c, shape, key)
                        return
            return structure(self, serialized, value, shape, key)

        JSON._serialize_type_structure = serialize_structure

    # e. Condition tokens kept by the expression's text.
    try:
        from moto.dynamodb import comparisons as _comparisons
    except Exception:
        _comparisons = None
    if _comparisons is not None:
        CEP = _comparisons.ConditionExpressionParser
        lex = CEP._lex_condition_expression
        lexed = {}  # expression text -> its tokens' fields

        def lex_condition_expression(self):
            text = self.condition_expression
            if type(self) is not CEP or not isinstance(text, str):
                return lex(self)
            fields = lexed.get(text)
            if fields is None:
                nodes = lex(self)  # raises as it did for an expression that does not lex
                fields = tuple((n.nonterminal, n.kind, n.text, n.value) for n in nodes)
                if any(n.children for n in nodes):
                    return nodes
                with lock:
                    if len(lexed) >= 256:
                        lexed.clear()
                    lexed[text] = fields
            node = CEP.Node
            return _deque(node(nt, kind, t, v, []) for nt, kind, t, v in fields)

        CEP._lex_condition_expression = lex_condition_expression

    DFT.traverse = traverse
    validators.ActionCountValidator.verify_action_counts = verify_action_counts
    Parser.make = classmethod(cached_make)
    validators.deepcopy = deepcopy
    import sys

    print(EXPRESSIONS_PATCHED, file=sys.stderr, flush=True)


def _quieter_faster_server():
    _logging.getLogger("werkzeug").setLevel(_logging.WARNING)
    try:
        from werkzeug.serving import WSGIRequestHandler

        WSGIRequestHandler.protocol_version = "HTTP/1.1"
        WSGIRequestHandler.disable_nagle_algorithm = True
    except Exception:
        pass
    try:
        from moto import backends

        services = tuple(backends.list_of_moto_modules())
        backends.list_of_moto_modules = lambda: services
    except Exception:
        pass


# PATCHED is the line moto's log starts with when the patch is in force.
PATCHED = "triage: moto's TransactWriteItems copies only the items it names"


def _measure(out_dir, calls):
    """moto's CPU per request, by operation, written to <dir>/ops.json every
    10 s: TRIAGE_MOTO_OPS=<dir>. TRIAGE_MOTO_PROFILE=<dir> adds a cProfile of
    the request handling, <dir>/moto.prof (pstats), which costs moto two to
    four times the CPU (docs/performance.md, "Where moto's time goes")."""
    import json
    import os
    import threading
    import time

    from werkzeug.serving import WSGIRequestHandler

    os.makedirs(out_dir, exist_ok=True)
    ops = {}  # X-Amz-Target (or the HTTP method) -> [requests, thread CPU ns]
    ops_lock = threading.Lock()
    one_request = WSGIRequestHandler.handle_one_request

    def handle_one_request(self):
        # The thread's CPU time from reading the request line to the flushed
        # response: waiting for the next request on a kept-alive connection
        # costs none.
        t0 = time.thread_time_ns()
        self.headers = None
        try:
            return one_request(self)
        finally:
            if self.headers is not None:
                spent = time.thread_time_ns() - t0
                op = self.headers.get("X-Amz-Target") or self.command or "?"
                with ops_lock:
                    entry = ops.setdefault(op, [0, 0])
                    entry[0] += 1
                    entry[1] += spent

    WSGIRequestHandler.handle_one_request = handle_one_request

    prof = prof_lock = None
    if calls:
        import cProfile

        prof, prof_lock = cProfile.Profile(), threading.Lock()
        run_wsgi = WSGIRequestHandler.run_wsgi

        def profiled_run_wsgi(self):
            # One profiler for the process: a request that finds it busy
            # (the front runs DynamoDB requests one at a time, so only the
            # odd S3 or SSM request does) is not profiled.
            if not prof_lock.acquire(blocking=False):
                return run_wsgi(self)
            try:
                prof.enable()
                try:
                    return run_wsgi(self)
                finally:
                    prof.disable()
            finally:
                prof_lock.release()

        WSGIRequestHandler.run_wsgi = profiled_run_wsgi

    def write(name, dump):
        tmp = os.path.join(out_dir, name + ".tmp")
        dump(tmp)
        os.replace(tmp, os.path.join(out_dir, name))

    def dump_ops(path):
        with ops_lock:
            snapshot = {k: {"requests": v[0], "cpu_ns": v[1]} for k, v in ops.items()}
        snapshot["_process_cpu_ns"] = {"requests": 0, "cpu_ns": time.process_time_ns()}
        with open(path, "w") as f:
            json.dump(snapshot, f, indent=1, sort_keys=True)

    def dump():
        while True:
            time.sleep(10)
            write("ops.json", dump_ops)
            if prof is not None:
                with prof_lock:
                    write("moto.prof", prof.dump_stats)

    threading.Thread(target=dump, daemon=True, name="triage-measure").start()


_quieter_faster_server()
_patch()
_patch_expressions()
_env = __import__("os").environ
if _env.get("TRIAGE_MOTO_PROFILE") or _env.get("TRIAGE_MOTO_OPS"):
    _measure(_env.get("TRIAGE_MOTO_PROFILE") or _env["TRIAGE_MOTO_OPS"], bool(_env.get("TRIAGE_MOTO_PROFILE")))
