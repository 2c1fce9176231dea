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


_quieter_faster_server()
_patch()
