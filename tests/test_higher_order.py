"""Forward mode entry points and derivatives of derivatives: jacobian (both modes), hessian
(forward over reverse), hvp, grad of grad, jvp of grad, grad of code calling a JVP, third derivatives."""

import math
import re

import numpy as np
import pytest
from fd import assert_close, call_jvp, numeric_grad

import s2sad

rng = np.random.default_rng(3)


def vector_field(x):
    """R^3 -> R^2 with a known Jacobian."""
    return np.stack([x[0] * x[1] * x[2], np.sin(x[0]) + x[1] ** 2])


def vector_field_jacobian(x):
    return np.array(
        [
            [x[1] * x[2], x[0] * x[2], x[0] * x[1]],
            [np.cos(x[0]), 2 * x[1], 0.0],
        ]
    )


def two_inputs(W, b):
    return np.tanh(W @ np.array([1.0, -2.0, 0.5]) + b)


def scalar_poly(x):
    return math.sin(x) * x**3


def numpy_loss(x):
    return np.sum(np.tanh(x) * x**2) + np.sum(x) ** 2


def looping(x):
    z = x
    for i in range(4):
        z = z * x + math.sin(z)
    return z


def looping_arrays(x, y):
    h = np.zeros(3)
    for i in range(5):
        h = np.tanh(h * x + y[i])
        if np.sum(h) > 1.0:
            break
    return np.sum(h * h)


def with_default(x, scale=2.0):
    return np.sum(np.sin(x) * scale)


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_of_a_vector_function_matches_the_analytic_one(mode):
    x = rng.normal(size=3)
    J = s2sad.jacobian(vector_field, mode=mode)(x)
    assert J.shape == (2, 3)
    assert_close(J, vector_field_jacobian(x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_for_a_tuple_of_matrix_arguments(mode):
    W, b = rng.normal(size=(4, 3)), rng.normal(size=4)
    JW, Jb = s2sad.jacobian(two_inputs, wrt=("W", "b"), mode=mode)(W, b)
    assert JW.shape == (4, 4, 3) and Jb.shape == (4, 4)
    assert_close(JW, numeric_grad(two_inputs, [W, b], 0))
    assert_close(Jb, numeric_grad(two_inputs, [W, b], 1))


def test_jacobian_of_a_scalar_function_of_a_float():
    J = s2sad.jacobian(scalar_poly)(0.4)
    assert_close(J, numeric_grad(scalar_poly, [0.4], 0))


@pytest.mark.parametrize(
    "f, args",
    [
        (scalar_poly, [0.7]),
        (numpy_loss, [rng.normal(size=4)]),
        (looping, [0.6]),
        (looping_arrays, [0.8, rng.normal(size=5) * 0.3]),
    ],
    ids=["scalar", "numpy", "loop", "loop-break-arrays"],
)
def test_hessian_matches_finite_differences_of_the_gradient(f, args):
    H = s2sad.hessian(f)(*args)
    g = s2sad.grad(f)
    expected = numeric_grad(g, args, 0)
    assert np.shape(H) == np.shape(args[0]) * 2
    assert_close(H, expected, rtol=1e-5, atol=1e-6)
    if np.ndim(args[0]):
        assert_close(H, np.swapaxes(H, 0, 1), rtol=1e-9, atol=1e-9)  # symmetric


def test_hessian_with_respect_to_a_second_argument():
    x, y = 0.8, rng.normal(size=5) * 0.3
    H = s2sad.hessian(looping_arrays, wrt="y")(x, y)
    assert_close(H, numeric_grad(s2sad.grad(looping_arrays, wrt="y"), [x, y], 1), rtol=1e-5, atol=1e-6)


def test_hvp_equals_hessian_times_v():
    x, v = rng.normal(size=4), rng.normal(size=4)
    Hv = s2sad.hvp(numpy_loss)(x, v)
    assert_close(Hv, s2sad.hessian(numpy_loss)(x) @ v, rtol=1e-10, atol=1e-10)


def test_hvp_and_jvp_keep_default_arguments():
    x, v = rng.normal(size=3), rng.normal(size=3)
    assert_close(s2sad.hvp(with_default)(x, v), -2.0 * np.sin(x) * v)
    value, tangent = s2sad.jvp(with_default)(x, v)
    assert_close(tangent, np.sum(2.0 * np.cos(x) * v))
    value, tangent = s2sad.jvp(with_default)(x, 3.0, v)  # (the tangent last; (x, v, 3.0) took 3.0 for it)
    assert_close(tangent, np.sum(3.0 * np.cos(x) * v))
    with pytest.raises(s2sad.DifferentiationError, match="the tangent dx is"):
        s2sad.jvp(with_default)(x, v, 3.0)


@pytest.mark.parametrize("f", [scalar_poly, looping], ids=["scalar", "loop"])
def test_grad_of_grad_and_third_derivative(f):
    x = 0.7
    g = s2sad.grad(f)
    gg = s2sad.grad(g)
    ggg = s2sad.grad(gg)
    assert_close(gg(x), numeric_grad(g, [x], 0), rtol=1e-6)
    assert_close(ggg(x), numeric_grad(gg, [x], 0), rtol=1e-5)
    assert isinstance(gg(x), float)


def test_third_derivative_of_sin_x_cubed_is_exact():
    x = 0.9
    third = s2sad.grad(s2sad.grad(s2sad.grad(scalar_poly)))(x)
    s, c = math.sin(x), math.cos(x)
    exact = -c * x**3 - 9 * s * x**2 + 18 * c * x + 6 * s
    assert third == pytest.approx(exact, rel=1e-12)


def test_jvp_of_grad():
    x = rng.normal(size=4)
    v = rng.normal(size=4)
    g = s2sad.grad(numpy_loss)
    value, tangent = call_jvp(g, [x], [0], [v])
    assert_close(value, g(x), rtol=1e-12, atol=0)
    assert_close(tangent, numeric_grad(g, [x], 0) @ v)


slope_of_poly = s2sad.jvp(scalar_poly)


def derivative_via_jvp(x):
    return slope_of_poly(x, 1.0)[1]


def test_grad_of_code_that_calls_a_generated_jvp():
    x = 0.3
    assert_close(s2sad.grad(derivative_via_jvp)(x), numeric_grad(derivative_via_jvp, [x], 0))


def test_sources_of_every_entry_point_are_readable():
    for fn in (
        s2sad.jvp(numpy_loss),
        s2sad.jacobian(vector_field),
        s2sad.hessian(numpy_loss),
        s2sad.hvp(numpy_loss),
        s2sad.grad(s2sad.grad(scalar_poly)),
    ):
        text = s2sad.source(fn)
        assert f"def {fn.__name__}(" in text
        assert "__s2sad" not in text
        compile(text, "<source>", "exec")
    hess = s2sad.source(s2sad.hessian(numpy_loss))
    assert "def jvp_dnumpy_loss_dx(" in hess and "unit_tangents" in hess


def test_verbose_prints_the_source(capsys):
    fn = s2sad.hessian(scalar_poly, verbose=True)
    assert s2sad.source(fn) in capsys.readouterr().out


def test_hessian_of_several_arguments_is_jax_nested():
    x, y = np.array([0.3, -0.2, 0.5]), np.array([0.1, 0.4, -0.3, 0.2, 0.6])
    h = s2sad.hessian(looping_arrays, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(h[0][0], s2sad.hessian(looping_arrays, wrt=0)(x, y))
    np.testing.assert_allclose(h[1][1], s2sad.hessian(looping_arrays, wrt=1)(x, y))
    np.testing.assert_allclose(h[0][1], h[1][0].T)
    assert h[0][1].shape == (3, 5)


def test_hvp_needs_one_argument():
    with pytest.raises(s2sad.DifferentiationError, match="one argument"):
        s2sad.hvp(looping_arrays, wrt=(0, 1))


def test_jacobian_mode_is_checked():
    with pytest.raises(s2sad.DifferentiationError, match="forward"):
        s2sad.jacobian(vector_field, mode="sideways")


def logabsdet(a):
    return np.linalg.slogdet(a)[1]


def test_hessian_through_a_tuple_valued_primitive():
    """Regression: the gradient writes bt[1] into a list; differentiating it again must not reuse the
    value bt[1] had before that write."""
    a = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    H = s2sad.hessian(logabsdet)(a)
    assert_close(H, numeric_grad(s2sad.grad(logabsdet), [a], 0), rtol=1e-6, atol=1e-8)


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w * w)


def test_string_options_of_primitives_stay_strings():
    a = rng.normal(size=(3, 3))
    s = a + a.T
    g = s2sad.grad(eigh_upper)(s)
    # eigh(UPLO="U") reads the upper triangle only: so does its gradient
    assert_close(g, numeric_grad(eigh_upper, [s], 0), rtol=1e-6, atol=1e-7)
    assert np.all(np.tril(g, -1) == 0)


def product(x):
    return np.sum(np.sin(x)) + np.prod(x[:3])


def test_third_derivative_of_prod_is_exact_with_zeros():
    # np.prod's derivatives are products of the other factors at every order (no division): exact at zeros
    x = np.array([0.5, 0.0, 2.0, -1.0])
    hessian = s2sad.hessian(product)
    third = s2sad.jacobian(hessian)(x)
    expected = np.stack([(hessian(x + 1e-5 * e) - hessian(x - 1e-5 * e)) / 2e-5 for e in np.eye(4)], axis=-1)
    assert_close(third, expected, rtol=1e-6, atol=1e-7)
    assert third[0, 1, 2] == pytest.approx(1.0) and third[1, 2, 3] == 0.0


def p_norm(x):
    return np.sum(np.sin(x)) + np.linalg.norm(x[:2], 3)


def spectral_norm(x):
    return np.sum(np.sin(x)) + np.linalg.norm(x.reshape(2, 2), 2)


def test_norm_with_ord_differentiates_to_any_order_and_spectral_refuses_at_the_users_line():
    # np.linalg.norm with ord= (elementwise norms): W = c conj(x)^m |x|^q Y^r, a family closed under
    # differentiation (norm_power), so the third derivative is exact; the spectral norm's goes through svd
    # once (unnorm_ord_tangent): its third derivative is refused, the message starting at the user's line
    x = np.array([0.5, -1.5, 2.0, 0.7])
    hessian = s2sad.hessian(p_norm)
    expected = np.stack([(hessian(x + 1e-5 * e) - hessian(x - 1e-5 * e)) / 2e-5 for e in np.eye(4)])
    assert_close(s2sad.jacobian(hessian)(x), expected, rtol=1e-5, atol=1e-6)
    assert_close(s2sad.jacobian(hessian, mode="forward")(x), expected, rtol=1e-5, atol=1e-6)
    line = spectral_norm.__code__.co_firstlineno + 1
    assert np.all(np.isfinite(s2sad.hessian(spectral_norm)(x)))
    with pytest.raises(s2sad.DifferentiationError) as err:
        s2sad.jacobian(s2sad.hessian(spectral_norm))(x)
    at = rf"^\S*test_higher_order.py:{line}:5: "
    assert re.match(at + r"s2sad differentiates np.linalg.norm\(x, ord=2\) at most twice", str(err.value))


# ---- second derivatives through indices that are neither literals nor the plain loop variable ----
# (the adjoint accumulates with add_at there, which must itself be differentiated, not skipped)


def index_by_name(x):
    j = 2
    return np.sum(x[j] ** 3 * x)


def index_by_expression(x):
    s = 0.0
    for i in range(2):
        s = s + x[1 - i] ** 3
    return s


def index_modular(x):
    s = 0.0
    for t in range(3):
        s = s + x[(t + 2) % 3] ** 3 * x[t]
    return s


def index_by_mask(x):
    return np.sum(x[x > 0] ** 3)


def index_repeated(x):
    return np.sum(x[[0, 0, 2]] ** 3)


INDEXED = [index_by_name, index_by_expression, index_modular, index_by_mask, index_repeated]


def _grad_dot(f, v):
    """x -> <grad f(x), v>: a scalar whose gradient is the Hessian times v (reverse over reverse)."""
    g = s2sad.grad(f)

    def dotted(x):
        return np.sum(g(x) * v)

    return dotted


def _slope(f, v):
    """x -> the derivative of f at x along v, by forward mode: its gradient is H v (reverse over forward)."""
    jvp = s2sad.jvp(f)

    def slope(x):
        return jvp(x, v)[1]

    return slope


@pytest.mark.parametrize("f", INDEXED, ids=lambda f: f.__name__)
def test_second_derivatives_through_computed_indices(f):
    x, v = np.array([0.3, -0.7, 1.2]), np.array([1.0, -2.0, 0.5])
    expected = numeric_grad(s2sad.grad(f), [x], 0)
    assert np.any(expected != 0)
    assert_close(s2sad.hessian(f)(x), expected)  # forward over reverse
    assert_close(s2sad.grad(_grad_dot(f, v))(x), expected.T @ v)  # reverse over reverse
    assert_close(s2sad.grad(_slope(f, v))(x), expected @ v)  # reverse over forward


def scatter_in_place(x):
    a = np.zeros(3)
    np.add.at(a, [0, 0], x[:2])
    return np.sum(a * a)


@pytest.mark.parametrize("make", [s2sad.grad, s2sad.jvp], ids=["reverse", "forward"])
def test_a_call_that_writes_into_a_differentiated_value_is_refused_not_skipped(make):
    with pytest.raises(s2sad.DifferentiationError, match="in place"):
        make(scatter_in_place)
