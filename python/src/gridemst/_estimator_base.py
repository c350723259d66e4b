"""scikit-learn's estimator interface, for when scikit-learn is not installed.

get_params, set_params and fit_predict as scikit-learn's BaseEstimator and
ClusterMixin define them: parameters are the constructor's keyword
arguments, stored unchanged as attributes of the same names.
"""
import inspect


class BaseEstimator:
    @classmethod
    def _get_param_names(cls):
        return sorted(p.name for p in inspect.signature(cls.__init__).parameters.values()
                      if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        """The estimator's parameters, as a dict of name to value."""
        return {name: getattr(self, name) for name in self._get_param_names()}

    def set_params(self, **params):
        """Sets parameters by name; returns the estimator."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError("invalid parameter %r for estimator %s; valid parameters: %s"
                                 % (name, type(self).__name__, ", ".join(valid)))
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = {p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()}
        changed = ["%s=%r" % (k, v) for k, v in self.get_params().items() if defaults.get(k) != v]
        return "%s(%s)" % (type(self).__name__, ", ".join(changed))


class ClusterMixin:
    _estimator_type = "clusterer"

    def fit_predict(self, X, y=None):
        """Fits on X and returns labels_."""
        self.fit(X)
        return self.labels_
