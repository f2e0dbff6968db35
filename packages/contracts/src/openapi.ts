import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { listQuery, pageQuery, problemSchema, uuidParam } from './http/common';
import { sessionResponse, signInBody, signUpBody, updateProfileBody } from './http/auth';
import { addressBody, customerAddress } from './http/addresses';
import { createReturnBody, followStoreBody, followedFeed, followedFeedQuery, followedStore, rejectReturnBody, returnRequest, storeIdParam, vendorReturnRequest, vendorReturnsQuery, wishlistIds, wishlistToggleBody, wishlistToggleResponse } from './http/account-features';
import { productCard } from './http/catalog';
import { accountSetupBody, changePasswordBody, customerTin, mustChangePasswordResponse, updateTinBody } from './http/account';
import {
  activateShippingMethodBody,
  activationResult,
  cancelShipmentBody,
  pickupAddressBody,
  shipShipmentBody,
  shipmentDetail,
  shipmentPage,
  shipmentsQuery,
  shippingMethodBody,
  vendorPickupAddress,
  vendorShippingMethod,
} from './http/vendor';
import { webhookApiRoutes } from './http/webhooks';
import { paymentNotificationBody, paymentUrlResponse } from './http/payments';
import { catalogProductDetail, catalogProductPage, catalogProductsQuery, category, categoryBody, vendorProduct, vendorProductBody, vendorProductPage } from './http/catalog';
import {
  adminKolCode,
  adminVoucher,
  createKolCodeBody,
  createVoucherBody,
  updateKolCodeBody,
  updateVoucherBody,
  validateKolCodeBody,
  validateKolCodeResponse,
  validateVoucherBody,
  validateVoucherResponse,
} from './http/promotions';
import { customerOrderList, familySubmitBody, loyaltyBalance, loyaltyResponse, orderDetail, pendingOrder, placedOrder, submitOrderBody } from './http/orders';
import {
  bookingResult,
  carrierBookingRecord,
  labelQuery,
  labelUrlResponse,
  rejectVendorApplicationBody,
  settlementImportBody,
  settlementImportResult,
  settlementRecord,
  settlementsQuery,
  vendorApplication,
  vendorApplicationBody,
  vendorApplicationsQuery,
} from './http/admin';
import { addFamilyCartItemBody, createFamilyBody, family, familyAddressBody, familyCart, familyCartItem, familyMember, inviteFamilyMemberBody } from './http/family';
import {
  adminCompaniesQuery,
  adminCompany,
  approvedForCheckoutItem,
  b2bContext,
  b2bOrderDetail,
  b2bOrderSummary,
  b2bOrdersQuery,
  b2bSubmitBody,
  companyDetails,
  companyIdParam,
  createPurchaseRequestBody,
  dashboardStats,
  financeStats,
  inviteTeamMemberBody,
  monthlySpendEntry,
  procurementHistoryItem,
  purchaseRequestDetail,
  purchaseRequestListItem,
  purchaseRequestsQuery,
  recentRequest,
  recentRequestsQuery,
  registerCompanyBody,
  rejectCompanyBody,
  rejectPurchaseRequestBody,
  taxCompleteness,
  teamMember,
  updateCompanyBody,
} from './http/b2b';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented endpoint. Add an entry here when you add an endpoint (README: "adding an endpoint"). */
export interface ApiRoute {
  method: Method;
  /** OpenAPI path template under /api/v1, e.g. `/account/addresses/{id}`. */
  path: string;
  summary: string;
  tag: string;
  /** `public` needs no session; otherwise the role the gateway requires (`any` = signed in). */
  access: 'public' | 'any' | 'customer' | 'vendor' | 'admin';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success status and body schema (null = empty body). */
  success: { status: 200 | 201 | 204; body: z.ZodType | null };
  /** Problem answers of this endpoint beyond the ones its access and params imply (e.g. 409 duplicate). */
  problems?: { status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 502 | 503 | 504; description: string }[];
}

export const apiRoutes: ApiRoute[] = [
  { method: 'post', path: '/auth/sign-up', summary: 'Create a customer account and sign in', tag: 'Auth', access: 'public', body: signUpBody, success: { status: 201, body: sessionResponse }, problems: [{ status: 409, description: 'email_taken: an account with this e-mail exists' }] },
  { method: 'post', path: '/auth/sign-in', summary: 'Sign in; sets the session cookie', tag: 'Auth', access: 'public', body: signInBody, success: { status: 200, body: sessionResponse }, problems: [{ status: 401, description: 'invalid_credentials: wrong e-mail or password' }, { status: 429, description: 'rate_limited: too many failed attempts for this e-mail or IP (see Retry-After)' }] },
  { method: 'post', path: '/auth/sign-out', summary: 'End the session', tag: 'Auth', access: 'public', success: { status: 204, body: null } },
  { method: 'get', path: '/auth/session', summary: 'The signed-in user', tag: 'Auth', access: 'any', success: { status: 200, body: sessionResponse } },
  { method: 'patch', path: '/account/profile', summary: 'Change the full name', tag: 'Account', access: 'any', body: updateProfileBody, success: { status: 204, body: null } },
  { method: 'get', path: '/account/addresses', summary: "The caller's delivery addresses (default first)", tag: 'Account', access: 'customer', success: { status: 200, body: z.array(customerAddress) } },
  { method: 'post', path: '/account/addresses', summary: 'Add an address; is_default=true unsets the others atomically', tag: 'Account', access: 'customer', body: addressBody, success: { status: 201, body: null } },
  { method: 'put', path: '/account/addresses/{id}', summary: 'Replace an address', tag: 'Account', access: 'customer', params: uuidParam, body: addressBody, success: { status: 204, body: null } },
  { method: 'delete', path: '/account/addresses/{id}', summary: 'Delete an address', tag: 'Account', access: 'customer', params: uuidParam, success: { status: 204, body: null } },
  { method: 'patch', path: '/account/addresses/{id}/default', summary: 'Make the address the default', tag: 'Account', access: 'customer', params: uuidParam, success: { status: 204, body: null } },
  // account setup and passwords (gateway), TIN (checkout)
  { method: 'get', path: '/account/must-change-password', summary: 'Whether the caller still has to replace a temporary password (complete account setup)', tag: 'Account', access: 'any', success: { status: 200, body: mustChangePasswordResponse } },
  { method: 'post', path: '/account/setup', summary: "Complete account setup: verifies the current password, sets the new one, name and phone, clears must_change_password, signs out the caller's other sessions; the address becomes the default delivery address, the TIN the profile TIN, and pending family/B2B memberships become active", tag: 'Account', access: 'any', body: accountSetupBody, success: { status: 204, body: null }, problems: [{ status: 400, description: 'validation_failed (also a new password equal to the current one); invalid_password: the current password is wrong; invalid_tin' }, { status: 429, description: 'rate_limited: too many wrong passwords for this account or IP (see Retry-After); shared with sign-in' }] },
  { method: 'post', path: '/account/change-password', summary: "Change the password (the current one is verified); the caller's other sessions are signed out", tag: 'Account', access: 'any', body: changePasswordBody, success: { status: 204, body: null }, problems: [{ status: 400, description: 'validation_failed (also a new password equal to the current one); invalid_password: the current password is wrong' }, { status: 429, description: 'rate_limited: too many wrong passwords for this account or IP (see Retry-After); shared with sign-in' }] },
  { method: 'get', path: '/account/tin', summary: "The caller's profile TIN (null when none)", tag: 'Account', access: 'customer', success: { status: 200, body: customerTin } },
  { method: 'patch', path: '/account/tin', summary: "Set the caller's profile TIN (validated and normalised), or clear it with null or an empty string; existing orders keep their buyer TIN", tag: 'Account', access: 'customer', body: updateTinBody, success: { status: 204, body: null }, problems: [{ status: 400, description: 'validation_failed; invalid_tin: not a valid TIN' }] },
  { method: 'get', path: '/vendor/shipping-methods', summary: "The store's shipping methods, oldest first", tag: 'Vendor', access: 'vendor', query: listQuery, success: { status: 200, body: z.array(vendorShippingMethod) }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'post', path: '/vendor/shipping-methods', summary: 'Add a shipping method (inactive until activated); rate_config stored as given', tag: 'Vendor', access: 'vendor', body: shippingMethodBody, success: { status: 201, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'put', path: '/vendor/shipping-methods/{id}', summary: 'Replace a shipping method (is_active unchanged)', tag: 'Vendor', access: 'vendor', params: uuidParam, body: shippingMethodBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'delete', path: '/vendor/shipping-methods/{id}', summary: 'Delete a shipping method', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'patch', path: '/vendor/shipping-methods/{id}/toggle-active', summary: 'Flip is_active; answers the new value (switching on is checked like activate)', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 200, body: z.boolean() }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 409, description: 'activation_blocked: products lack weight or dimensions (activate lists them)' }, { status: 503, description: 'dependency_unavailable: checkout did not answer the activation check' }] },
  { method: 'post', path: '/vendor/shipping-methods/{id}/activate', summary: 'Set is_active; activation is refused in the body while products lack weight or dimensions', tag: 'Vendor', access: 'vendor', params: uuidParam, body: activateShippingMethodBody, success: { status: 200, body: activationResult }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 503, description: 'dependency_unavailable: checkout did not answer the activation check' }] },
  { method: 'get', path: '/vendor/pickup-addresses', summary: "The store's pickup addresses: default first, then oldest", tag: 'Vendor', access: 'vendor', query: listQuery, success: { status: 200, body: z.array(vendorPickupAddress) }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'post', path: '/vendor/pickup-addresses', summary: 'Add a pickup address; is_default=true unsets the other default atomically', tag: 'Vendor', access: 'vendor', body: pickupAddressBody, success: { status: 201, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'put', path: '/vendor/pickup-addresses/{id}', summary: 'Replace a pickup address', tag: 'Vendor', access: 'vendor', params: uuidParam, body: pickupAddressBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'delete', path: '/vendor/pickup-addresses/{id}', summary: 'Delete a pickup address', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'get', path: '/vendor/shipments', summary: "The store's shipments (sub-orders), newest first, 20 per page", tag: 'Vendor', access: 'vendor', query: shipmentsQuery, success: { status: 200, body: shipmentPage }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'get', path: '/vendor/shipments/{id}', summary: 'One shipment: items, recipient address, tracking, timestamps', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 200, body: shipmentDetail }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'post', path: '/vendor/shipments/{id}/process', summary: 'paid → processing', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 409, description: 'invalid_status: only a paid shipment can be processed' }] },
  { method: 'post', path: '/vendor/shipments/{id}/ship', summary: "Mark shipped with tracking (URL from the courier's template when absent); also re-ship to correct tracking", tag: 'Vendor', access: 'vendor', params: uuidParam, body: shipShipmentBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 400, description: 'tracking_url_required: courier other needs a trackingUrl' }, { status: 409, description: 'invalid_status: pending_payment, cancelled or delivered' }] },
  { method: 'post', path: '/vendor/shipments/{id}/deliver', summary: 'Mark delivered', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 409, description: 'already_delivered, or invalid_status when cancelled' }] },
  { method: 'post', path: '/vendor/shipments/{id}/cancel', summary: 'Cancel a paid or processing shipment; checkout releases stock and refunds', tag: 'Vendor', access: 'vendor', params: uuidParam, body: cancelShipmentBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 400, description: 'invalid_status: only paid or processing shipments can be cancelled' }] },
  { method: 'get', path: '/catalog/products', summary: 'Live products of active stores, newest first, 20 a page (filters storeId, categoryId, q)', tag: 'Catalog', access: 'public', query: catalogProductsQuery, success: { status: 200, body: catalogProductPage } },
  { method: 'get', path: '/catalog/products/{id}', summary: 'A live product with its variants', tag: 'Catalog', access: 'public', params: uuidParam, success: { status: 200, body: catalogProductDetail } },
  { method: 'get', path: '/catalog/categories', summary: 'Every category, by name', tag: 'Catalog', access: 'public', query: listQuery, success: { status: 200, body: z.array(category) } },
  { method: 'get', path: '/vendor/products', summary: "The caller's store's products, every status, newest first, 20 a page", tag: 'Vendor catalog', access: 'vendor', query: pageQuery, success: { status: 200, body: vendorProductPage }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'post', path: '/vendor/products', summary: "Add a product to the caller's store (slug from the name, unique in the store)", tag: 'Vendor catalog', access: 'vendor', body: vendorProductBody, success: { status: 201, body: vendorProduct }, problems: [{ status: 400, description: 'validation_failed; unknown_category; unknown_variant (a variant id on create)' }, { status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'put', path: '/vendor/products/{id}', summary: 'Replace a product; the variant list replaces the current one', tag: 'Vendor catalog', access: 'vendor', params: uuidParam, body: vendorProductBody, success: { status: 200, body: vendorProduct }, problems: [{ status: 400, description: 'validation_failed; unknown_category; unknown_variant: an id that is not a variant of this product' }, { status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }, { status: 409, description: 'variant_in_use: the request leaves out a variant that an order holds; stock_changed: the stockVersion sent is not the current one (a sale or another edit came first; read again, nothing written); stock_version_required: the request changes an existing stock value without a stockVersion' }] },
  { method: 'delete', path: '/vendor/products/{id}', summary: 'Delete a product; one that an order holds is archived instead', tag: 'Vendor catalog', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'Wrong role, or no_store: the vendor has no store yet' }] },
  { method: 'get', path: '/admin/categories', summary: 'Every category, by name', tag: 'Admin catalog', access: 'admin', query: listQuery, success: { status: 200, body: z.array(category) } },
  { method: 'post', path: '/admin/categories', summary: 'Add a category (slug from the name)', tag: 'Admin catalog', access: 'admin', body: categoryBody, success: { status: 201, body: category }, problems: [{ status: 409, description: 'category_exists: a category with this name (or slug) exists' }] },
  { method: 'post', path: '/family', summary: 'Create a family; the caller becomes its owner', tag: 'Family', access: 'customer', body: createFamilyBody, success: { status: 201, body: family }, problems: [{ status: 409, description: 'already_in_family: the caller owns or belongs to a family' }] },
  { method: 'get', path: '/family', summary: "The caller's family (owner, pending or active member) with its current members", tag: 'Family', access: 'customer', success: { status: 200, body: family }, problems: [{ status: 404, description: 'not_found: the caller belongs to no family' }] },
  { method: 'put', path: '/family/address', summary: 'Set the delivery address of family orders (owner)', tag: 'Family', access: 'customer', body: familyAddressBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'forbidden: not the customer role, or not the family owner' }, { status: 404, description: 'not_found: the caller belongs to no family' }] },
  { method: 'post', path: '/family/members', summary: 'Invite a member (owner): an account with a temporary password is created when the e-mail has none; invite e-mail', tag: 'Family', access: 'customer', body: inviteFamilyMemberBody, success: { status: 201, body: familyMember }, problems: [{ status: 403, description: 'forbidden: not the customer role, or not the family owner' }, { status: 404, description: 'not_found: the caller belongs to no family' }, { status: 409, description: 'already_in_family: the person belongs to a family; family_full: 10 members; not_a_customer: the account is not a customer' }, { status: 502, description: 'identity_refused: identity refused to create the account' }, { status: 503, description: 'dependency_unavailable: identity is not answering; nothing was written' }] },
  { method: 'delete', path: '/family/members/{id}', summary: 'Remove a member (owner; not the owner): the membership becomes inactive', tag: 'Family', access: 'customer', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'forbidden: not the customer role, or not the family owner' }, { status: 409, description: 'cannot_remove_owner' }] },
  { method: 'get', path: '/family/cart', summary: 'The shared family cart, priced now (active members)', tag: 'Family', access: 'customer', success: { status: 200, body: familyCart }, problems: [{ status: 403, description: 'forbidden: not the customer role; membership_pending: account setup not completed yet' }, { status: 404, description: 'not_found: the caller belongs to no family' }] },
  { method: 'post', path: '/family/cart/items', summary: 'Add a live product to the family cart; the same product and variant adds to its line', tag: 'Family', access: 'customer', body: addFamilyCartItemBody, success: { status: 201, body: familyCartItem }, problems: [{ status: 403, description: 'forbidden: not the customer role; membership_pending: account setup not completed yet' }, { status: 404, description: 'not_found: the caller belongs to no family' }, { status: 409, description: 'quantity_limit: a line holds at most 999' }] },
  { method: 'delete', path: '/family/cart/items/{id}', summary: 'Remove a line from the family cart (active members)', tag: 'Family', access: 'customer', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'forbidden: not the customer role; membership_pending: account setup not completed yet' }] },
  { method: 'post', path: '/checkout/payment/initiate/{id}', summary: "Start paying the caller's unpaid order: the hosted payment page URL with its vcode (mock switch outside production: the order is paid and the return path answered)", tag: 'Checkout', access: 'customer', params: uuidParam, success: { status: 200, body: paymentUrlResponse }, problems: [{ status: 409, description: 'order_not_payable: the order is paid, expired or otherwise not awaiting payment' }] },
  { method: 'post', path: '/checkout/payment/retry/{id}', summary: 'A fresh hosted payment page URL for an unpaid, unexpired order', tag: 'Checkout', access: 'customer', params: uuidParam, success: { status: 200, body: paymentUrlResponse }, problems: [{ status: 409, description: 'order_not_payable: the order is paid, expired or otherwise not awaiting payment' }] },
  { method: 'post', path: '/payments/notify', summary: "The payment gateway's notification (no session; form-urlencoded or JSON), verified by skey; answers text/plain OK. Failed or pending reports are recorded and the order stays payable until it expires", tag: 'Payments', access: 'public', body: paymentNotificationBody, success: { status: 200, body: z.string().meta({ description: 'text/plain acknowledgement', example: 'OK' }) }, problems: [{ status: 400, description: 'validation_failed; invalid_signature (nothing changes); amount_mismatch' }, { status: 404, description: 'not_found: no order with this orderid' }, { status: 409, description: 'order_expired: paid after the order expired (recorded; refund due); order_already_paid: paid by another transaction' }] },
  // checkout: vouchers, KOL codes, submit, orders, loyalty
  { method: 'get', path: '/admin/vouchers', summary: 'Every voucher, newest first', tag: 'Admin', access: 'admin', query: listQuery, success: { status: 200, body: z.array(adminVoucher) } },
  { method: 'post', path: '/admin/vouchers', summary: 'Create a voucher (answers it, with its Location)', tag: 'Admin', access: 'admin', body: createVoucherBody, success: { status: 201, body: adminVoucher }, problems: [{ status: 400, description: 'validation_failed; invalid_discount_value; percentage_over_100; store_id_required (tier store); store_id_not_allowed (tier platform); invalid_window (endsAt <= startsAt)' }, { status: 409, description: 'duplicate_code: another voucher has this code' }] },
  { method: 'patch', path: '/admin/vouchers/{id}', summary: 'Change some fields of a voucher; the result must be a consistent voucher', tag: 'Admin', access: 'admin', params: uuidParam, body: updateVoucherBody, success: { status: 200, body: adminVoucher }, problems: [{ status: 400, description: 'validation_failed; the create codes; max_uses_below_used' }, { status: 409, description: 'duplicate_code' }] },
  { method: 'get', path: '/admin/kol-codes', summary: 'Every KOL code, newest first', tag: 'Admin', access: 'admin', query: listQuery, success: { status: 200, body: z.array(adminKolCode) } },
  { method: 'post', path: '/admin/kol-codes', summary: 'Create a KOL code for a category (answers it, with its Location)', tag: 'Admin', access: 'admin', body: createKolCodeBody, success: { status: 201, body: adminKolCode }, problems: [{ status: 400, description: 'validation_failed; invalid_discount_value; percentage_over_100; category_not_found' }, { status: 409, description: 'duplicate_code: another KOL code has this code' }] },
  { method: 'patch', path: '/admin/kol-codes/{id}', summary: 'Change some fields of a KOL code', tag: 'Admin', access: 'admin', params: uuidParam, body: updateKolCodeBody, success: { status: 200, body: adminKolCode }, problems: [{ status: 400, description: 'validation_failed; invalid_discount_value; percentage_over_100; category_not_found' }, { status: 409, description: 'duplicate_code' }] },
  { method: 'post', path: '/checkout/validate-voucher', summary: 'Check a voucher against a cart subtotal; the discount is rounded half-up to cents and clamped to the subtotal', tag: 'Checkout', access: 'any', body: validateVoucherBody, success: { status: 200, body: validateVoucherResponse }, problems: [{ status: 400, description: 'validation_failed; voucher_inactive; voucher_not_started; voucher_expired; voucher_exhausted (max uses); voucher_tier_mismatch; voucher_store_scope; voucher_min_order (checked in this order)' }, { status: 404, description: 'voucher_not_found' }] },
  { method: 'post', path: '/checkout/validate-kol-code', summary: 'Look up an active KOL code (case-insensitive)', tag: 'Checkout', access: 'any', body: validateKolCodeBody, success: { status: 200, body: validateKolCodeResponse }, problems: [{ status: 400, description: 'validation_failed; kol_code_inactive' }, { status: 404, description: 'kol_code_not_found' }] },
  { method: 'post', path: '/checkout/submit', summary: 'Place an order for a single-store cart in one transaction (header Idempotency-Key, <= 100 characters: a retry with the same key and body answers the first order with 201)', tag: 'Checkout', access: 'customer', body: submitOrderBody, success: { status: 201, body: placedOrder }, problems: [{ status: 400, description: 'validation_failed; invalid_tin; multiple_stores; product_unavailable; variant_required; unknown_variant; insufficient_stock; shipping_method_unavailable; shipping_unavailable; voucher_* (as validate-voucher); kol_code_inactive; kol_code_not_applicable; loyalty_points_limit (over 50% of the subtotal); insufficient_points; amount_too_large (a line, fee or total over 999,999,999.99)' }, { status: 403, description: 'forbidden: only customers submit' }, { status: 404, description: "not_found: the address is not the caller's; voucher_not_found; kol_code_not_found" }, { status: 409, description: 'idempotency_key_reused: the key came with a different body' }] },
  { method: 'post', path: '/checkout/family/submit', summary: "Check out the family's shared cart (all of it or the listed items) to the family address; one sub-order per store; same transaction and Idempotency-Key as submit", tag: 'Checkout', access: 'customer', body: familySubmitBody, success: { status: 201, body: placedOrder }, problems: [{ status: 400, description: 'validation_failed; family_address_missing; cart_empty; product_unavailable; unknown_variant; insufficient_stock; shipping_method_unavailable; shipping_unavailable; amount_too_large' }, { status: 403, description: 'forbidden: not the customer role; membership_pending: account setup not completed yet' }, { status: 404, description: 'not_found: the caller belongs to no family, or a cart item is not in its cart' }, { status: 409, description: 'idempotency_key_reused' }] },
  { method: 'get', path: '/checkout/pending-order', summary: "The caller's newest order awaiting payment that has not expired, or null", tag: 'Checkout', access: 'customer', success: { status: 200, body: pendingOrder } },
  { method: 'get', path: '/account/orders', summary: "The caller's orders, newest first, 20 per page", tag: 'Account', access: 'customer', query: pageQuery, success: { status: 200, body: customerOrderList } },
  { method: 'get', path: '/account/orders/{id}', summary: "One of the caller's orders: sub-orders with status and tracking, items, payment with refunded amount", tag: 'Account', access: 'customer', params: uuidParam, success: { status: 200, body: orderDetail } },
  { method: 'get', path: '/account/loyalty', summary: "The caller's points: balance, totals and one page (20) of transactions, newest first", tag: 'Account', access: 'customer', query: pageQuery, success: { status: 200, body: loyaltyResponse } },
  { method: 'get', path: '/account/loyalty-balance', summary: "The caller's point balance", tag: 'Account', access: 'customer', success: { status: 200, body: loyaltyBalance } },
  { method: 'get', path: '/account/wishlist', summary: "The caller's wishlist as Product cards, newest first (live products of active stores)", tag: 'Account', access: 'customer', success: { status: 200, body: z.array(productCard) } },
  { method: 'get', path: '/account/wishlist/ids', summary: 'The ids of the wishlisted products (the same products as the wishlist), newest first', tag: 'Account', access: 'customer', success: { status: 200, body: wishlistIds } },
  { method: 'post', path: '/account/wishlist/toggle', summary: 'Add the product to the wishlist or remove it; answers the new state (concurrent toggles take turns)', tag: 'Account', access: 'customer', body: wishlistToggleBody, success: { status: 200, body: wishlistToggleResponse }, problems: [{ status: 404, description: 'not_found: no live product of an active store has this id (removing works whatever became of it)' }, { status: 409, description: 'wishlist_full: 500 products' }] },
  { method: 'post', path: '/account/followed-stores', summary: 'Follow a store (idempotent)', tag: 'Account', access: 'customer', body: followStoreBody, success: { status: 204, body: null }, problems: [{ status: 404, description: 'not_found: no store has this id' }, { status: 409, description: 'follow_limit: 500 stores' }] },
  { method: 'get', path: '/account/followed-stores', summary: 'The stores the caller follows, most recently followed first', tag: 'Account', access: 'customer', success: { status: 200, body: z.array(followedStore) } },
  { method: 'delete', path: '/account/followed-stores/{storeId}', summary: 'Stop following a store (idempotent)', tag: 'Account', access: 'customer', params: storeIdParam, success: { status: 204, body: null } },
  { method: 'get', path: '/account/followed-feed', summary: 'Live products of the followed active stores, newest first, 20 per page (a page past the last is empty)', tag: 'Account', access: 'customer', query: followedFeedQuery, success: { status: 200, body: followedFeed } },
  { method: 'get', path: '/account/returns', summary: "The caller's returns, newest first", tag: 'Account', access: 'customer', query: listQuery, success: { status: 200, body: z.array(returnRequest) } },
  { method: 'get', path: '/account/returns/{id}', summary: "One of the caller's returns (where POST's Location points)", tag: 'Account', access: 'customer', params: uuidParam, success: { status: 200, body: returnRequest } },
  { method: 'post', path: '/account/returns', summary: 'Request a return of items of a delivered order, all of one store (status requested)', tag: 'Account', access: 'customer', body: createReturnBody, success: { status: 201, body: null }, problems: [{ status: 400, description: 'validation_failed; order_not_delivered; item_not_in_order; multiple_stores; item_not_delivered (the items\' shipment was cancelled)' }, { status: 404, description: "not_found: the order is not the caller's" }, { status: 409, description: 'return_exists: an item is in another return that was not rejected' }] },
  { method: 'get', path: '/vendor/returns', summary: "The returns of the caller's store, newest first, optionally of one status", tag: 'Vendor', access: 'vendor', query: vendorReturnsQuery, success: { status: 200, body: z.array(vendorReturnRequest) }, problems: [{ status: 403, description: 'no_store: the vendor has no store yet' }] },
  { method: 'post', path: '/vendor/returns/{id}/approve', summary: 'requested → approved (vendor_reviewed_at)', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'no_store: the vendor has no store yet' }, { status: 409, description: 'invalid_status: only a requested return' }] },
  { method: 'post', path: '/vendor/returns/{id}/reject', summary: 'requested → rejected with the reason (vendor_reviewed_at); its items may be returned again', tag: 'Vendor', access: 'vendor', params: uuidParam, body: rejectReturnBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'no_store: the vendor has no store yet' }, { status: 409, description: 'invalid_status: only a requested return' }] },
  { method: 'post', path: '/vendor/returns/{id}/receive', summary: 'approved → received (received_at)', tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'no_store: the vendor has no store yet' }, { status: 409, description: 'invalid_status: only an approved return' }] },
  { method: 'post', path: '/vendor/returns/{id}/refund', summary: "received → refunded (refunded_at), once: the lines' paid value is added to the payment's refunded_amount (clamped to its amount) and their earned points are reversed", tag: 'Vendor', access: 'vendor', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'no_store: the vendor has no store yet' }, { status: 409, description: 'invalid_status: only a received return (a refunded one answers 409)' }] },
  // b2b (issue 10): customer side, then /admin/b2b
  { method: 'post', path: '/b2b/companies', summary: 'Register a company (customer); it starts pending until an administrator reviews it', tag: 'B2B', access: 'customer', body: registerCompanyBody, success: { status: 201, body: null }, problems: [{ status: 409, description: 'company_exists: the caller owns a pending or approved company; already_in_company: the caller is a member of a company' }] },
  { method: 'patch', path: '/b2b/companies/{id}', summary: 'Edit the company (company_admin); TIN (validated, normalised) and MSIC required', tag: 'B2B', access: 'customer', params: uuidParam, body: updateCompanyBody, success: { status: 204, body: null }, problems: [{ status: 400, description: 'validation_failed; invalid_tin; invalid_msic; company_id_mismatch' }, { status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }] },
  { method: 'get', path: '/b2b/context', summary: "The caller's active membership in an approved company, or null", tag: 'B2B', access: 'customer', success: { status: 200, body: b2bContext } },
  { method: 'post', path: '/b2b/{companyId}/team', summary: 'Invite a member (company_admin): a new customer account with a temporary password, or an existing customer; invite e-mail; pending until account setup', tag: 'B2B', access: 'customer', params: companyIdParam, body: inviteTeamMemberBody, success: { status: 201, body: teamMember }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }, { status: 409, description: 'already_member; already_in_company; not_a_customer' }, { status: 502, description: 'identity_refused' }, { status: 503, description: 'dependency_unavailable: identity or the notifier is not answering' }] },
  { method: 'get', path: '/b2b/{companyId}/team', summary: "The company's members, newest first", tag: 'B2B', access: 'customer', params: companyIdParam, query: listQuery, success: { status: 200, body: z.array(teamMember) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'post', path: '/b2b/purchase-requests', summary: 'Raise a purchase request (active member): server-side price snapshot; tax gate (company TIN and MSIC)', tag: 'B2B', access: 'customer', body: createPurchaseRequestBody, success: { status: 201, body: null }, problems: [{ status: 400, description: 'validation_failed; tax_incomplete; product_unavailable; variant_required' }, { status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no active membership, or no such product' }, { status: 503, description: 'dependency_unavailable: checkout is not answering' }] },
  { method: 'get', path: '/b2b/{companyId}/purchase-requests', summary: "The company's purchase requests, newest first (status and requesterId filters)", tag: 'B2B', access: 'customer', params: companyIdParam, query: purchaseRequestsQuery, success: { status: 200, body: z.array(purchaseRequestListItem) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/purchase-requests/{id}', summary: 'A purchase request of the caller\'s company (list form plus productId, variantId)', tag: 'B2B', access: 'customer', params: uuidParam, success: { status: 200, body: purchaseRequestDetail }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }] },
  { method: 'post', path: '/b2b/purchase-requests/{id}/approve', summary: 'Approve a pending request (approver or company_admin; not your own)', tag: 'B2B', access: 'customer', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'b2b_role_forbidden; own_request: a requester cannot review their own request' }, { status: 409, description: 'not_pending' }] },
  { method: 'post', path: '/b2b/purchase-requests/{id}/reject', summary: 'Reject a pending request with a note (approver or company_admin; not your own)', tag: 'B2B', access: 'customer', params: uuidParam, body: rejectPurchaseRequestBody, success: { status: 204, body: null }, problems: [{ status: 403, description: 'b2b_role_forbidden; own_request' }, { status: 409, description: 'not_pending' }] },
  { method: 'post', path: '/b2b/purchase-requests/{id}/cancel', summary: 'Cancel your own pending or approved request', tag: 'B2B', access: 'customer', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 403, description: 'not_requester' }, { status: 409, description: 'not_cancellable' }] },
  { method: 'get', path: '/b2b/{companyId}/recent-requests', summary: 'The newest requests (staff: their own), limit 1..50', tag: 'B2B', access: 'customer', params: companyIdParam, query: recentRequestsQuery, success: { status: 200, body: z.array(recentRequest) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/approved-for-checkout', summary: 'Approved requests ready for B2B checkout, with store and weight (company_admin, finance)', tag: 'B2B', access: 'customer', params: companyIdParam, query: listQuery, success: { status: 200, body: z.array(approvedForCheckoutItem) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/procurement-history', summary: 'Requests that were paid, rejected or cancelled, newest change first', tag: 'B2B', access: 'customer', params: companyIdParam, query: listQuery, success: { status: 200, body: z.array(procurementHistoryItem) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/orders', summary: "The company's B2B orders, newest first (status filter)", tag: 'B2B', access: 'customer', params: companyIdParam, query: b2bOrdersQuery, success: { status: 200, body: z.array(b2bOrderSummary) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/orders/{id}', summary: "A B2B order of the caller's company: the order detail plus purchaseRequestMeta; null when not the caller's company's", tag: 'B2B', access: 'customer', params: uuidParam, success: { status: 200, body: b2bOrderDetail }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 503, description: 'dependency_unavailable: checkout is not answering' }] },
  { method: 'get', path: '/b2b/{companyId}/dashboard-stats', summary: 'Request counts: staff their own pending count, other roles company-wide', tag: 'B2B', access: 'customer', params: companyIdParam, success: { status: 200, body: dashboardStats }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/finance-stats', summary: 'Spend this month (paid orders), approved requests awaiting payment, approvals this month, team size (company_admin, finance)', tag: 'B2B', access: 'customer', params: companyIdParam, success: { status: 200, body: financeStats }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/monthly-spend', summary: 'Paid B2B spend per month (UTC), newest month first (company_admin, finance)', tag: 'B2B', access: 'customer', params: companyIdParam, query: listQuery, success: { status: 200, body: z.array(monthlySpendEntry) }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/company-details', summary: 'The company as its members see it', tag: 'B2B', access: 'customer', params: companyIdParam, success: { status: 200, body: companyDetails }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'get', path: '/b2b/{companyId}/tax-completeness', summary: 'Whether TIN and MSIC are set (pending and rejected companies: complete); members and the owner', tag: 'B2B', access: 'customer', params: companyIdParam, success: { status: 200, body: taxCompleteness }, problems: [{ status: 403, description: 'forbidden: not the customer role; b2b_role_forbidden: your company role may not do this; membership_pending: account setup not completed' }, { status: 404, description: 'not_found: no such company, or the caller is not an active member of it (another company is never revealed)' }] },
  { method: 'post', path: '/checkout/b2b/submit', summary: "Check out approved purchase requests of the caller's company (company_admin, finance): reserve, one order (is_b2b, buyer_tin = company TIN, one sub-order per store), requests paid on order.created; same Idempotency-Key as submit", tag: 'Checkout', access: 'customer', body: b2bSubmitBody, success: { status: 201, body: placedOrder }, problems: [{ status: 400, description: 'validation_failed; tax_incomplete; product_unavailable; insufficient_stock; shipping_unavailable' }, { status: 403, description: 'forbidden: not the customer role or not company_admin/finance' }, { status: 404, description: 'not_found: a request outside the caller\'s company, or the address' }, { status: 409, description: 'not_approved: a request is not approved (or another checkout holds it); idempotency_key_reused' }, { status: 503, description: 'dependency_unavailable: b2b is not answering' }] },
  { method: 'get', path: '/admin/b2b/companies', summary: 'Companies, newest first, with owner (optional status filter)', tag: 'Admin B2B', access: 'admin', query: adminCompaniesQuery, success: { status: 200, body: z.array(adminCompany) } },
  { method: 'get', path: '/admin/b2b/companies/pending', summary: 'Companies awaiting review, newest first', tag: 'Admin B2B', access: 'admin', query: listQuery, success: { status: 200, body: z.array(adminCompany) } },
  { method: 'get', path: '/admin/b2b/companies/{id}', summary: 'A company with owner and ssm_cert_url', tag: 'Admin B2B', access: 'admin', params: uuidParam, success: { status: 200, body: adminCompany } },
  { method: 'post', path: '/admin/b2b/companies/{id}/approve', summary: 'Approve a pending company: the owner becomes (or is reactivated as) company_admin; approval e-mail', tag: 'Admin B2B', access: 'admin', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 409, description: 'not_pending: already reviewed' }] },
  { method: 'post', path: '/admin/b2b/companies/{id}/reject', summary: 'Reject a pending company with a reason; rejection e-mail', tag: 'Admin B2B', access: 'admin', params: uuidParam, body: rejectCompanyBody, success: { status: 204, body: null }, problems: [{ status: 409, description: 'not_pending: already reviewed' }] },
  // admin: vendor applications, carrier bookings and labels, settlements
  ...webhookApiRoutes,
  { method: 'post', path: '/vendor-applications', summary: 'Apply to sell: a signed-in user sends the Vendor application (TIN and MSIC validated and normalised); one pending application per user', tag: 'Vendor applications', access: 'any', body: vendorApplicationBody, success: { status: 201, body: vendorApplication }, problems: [{ status: 400, description: 'validation_failed; invalid_tin; invalid_msic' }, { status: 409, description: 'application_pending: the caller has a pending application' }, { status: 429, description: 'rate_limited (per IP)' }] },
  { method: 'get', path: '/admin/vendor-applications', summary: 'Vendor applications, newest first, optionally of one status', tag: 'Admin', access: 'admin', query: vendorApplicationsQuery, success: { status: 200, body: z.array(vendorApplication) } },
  { method: 'get', path: '/admin/vendor-applications/{id}', summary: 'One vendor application', tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 200, body: vendorApplication } },
  { method: 'post', path: '/admin/vendor-applications/{id}/reject', summary: 'pending → rejected: stores the note, stamps reviewed_at, sends the rejection e-mail (its failure does not fail this)', tag: 'Admin', access: 'admin', params: uuidParam, body: rejectVendorApplicationBody, success: { status: 200, body: vendorApplication }, problems: [{ status: 409, description: 'not_pending: the application was reviewed already; approval_in_progress; approval_started: an approval began (its account exists), approve again to complete it' }] },
  { method: 'post', path: '/admin/vendor-applications/{id}/approve', summary: 'pending → approved: creates the vendor account (16-character password) and the store (TIN, MSIC, SST, bank data, consent), then e-mails the credentials; a retry after a failure half-way completes without a second account or store', tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 200, body: vendorApplication }, problems: [{ status: 409, description: 'not_pending; approval_in_progress: another approval of it is running; email_taken: the e-mail belongs to a non-vendor account; store_refused: the vendor service refused the store' }, { status: 500, description: 'credentials_email_failed: approved, but the credentials e-mail was not delivered; use resend-credentials' }, { status: 503, description: 'dependency_unavailable: identity or vendor did not answer; approve again' }] },
  { method: 'post', path: '/admin/vendor-applications/{id}/resend-credentials', summary: 'Approved applications: a new 16-character password is set and e-mailed', tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 204, body: null }, problems: [{ status: 409, description: 'not_approved' }, { status: 500, description: 'credentials_email_failed: the password was reset, but the e-mail was not delivered' }] },
  { method: 'post', path: '/admin/shipments/{id}/book', summary: 'Books the shipment (paid or processing) with its carrier; a 5xx or timeout is retried on the durable schedule (5m, 15m, 1h, 6h, 24h), a 4xx fails at once; a booked or retrying shipment answers its booking', tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 200, body: bookingResult }, problems: [{ status: 409, description: 'not_bookable; no_carrier: the shipping method has no carrier; no_pickup_address' }, { status: 503, description: 'dependency_unavailable: vendor did not answer' }] },
  { method: 'get', path: '/admin/shipments/{id}/booking', summary: 'Where the booking stands: status, attempts, nextAttemptAt, lastError, trackingNumber', tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 200, body: carrierBookingRecord } },
  { method: 'get', path: '/admin/shipments/{id}/label-url', summary: "Ensures the label is stored (carrier_b's is fetched now), then answers a signed URL valid for 1 hour", tag: 'Admin', access: 'admin', params: uuidParam, success: { status: 200, body: labelUrlResponse }, problems: [{ status: 409, description: 'not_booked' }, { status: 502, description: 'label_unavailable: the carrier did not hand out the label' }] },
  { method: 'get', path: '/shipment-labels/{id}', summary: 'The label PDF (application/pdf) behind a signed label URL; no session needed', tag: 'Admin', access: 'public', params: uuidParam, query: labelQuery, success: { status: 200, body: null }, problems: [{ status: 403, description: 'label_url_invalid (tampered), label_url_expired' }] },
  { method: 'post', path: '/admin/shipping/settlements/import', summary: "Imports a carrier's settlement CSV (header exact per carrier; bodies up to 21 MiB): every valid row is inserted or a duplicate of (carrier, tracking id, date); unmatched tracking ids are listed", tag: 'Admin', access: 'admin', body: settlementImportBody, success: { status: 200, body: settlementImportResult }, problems: [{ status: 400, description: 'validation_failed; wrong_header' }, { status: 413, description: 'payload_too_large: over 21 MiB' }] },
  { method: 'get', path: '/admin/shipping/settlements', summary: 'Carrier settlement records, newest first (limit 1..1000, default 100)', tag: 'Admin', access: 'admin', query: settlementsQuery, success: { status: 200, body: z.array(settlementRecord) } },
];

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problemSchema } },
});

function operation(route: ApiRoute): ZodOpenApiOperationObject {
  const responses: ZodOpenApiOperationObject['responses'] = {
    [String(route.success.status)]: route.success.body
      ? { description: 'OK', content: { 'application/json': { schema: route.success.body } } }
      : { description: 'No content' },
    '400': problemResponse('Invalid input or a broken business rule'),
  };
  if (route.access !== 'public') responses['401'] = problemResponse('No or invalid session');
  if (route.access !== 'public' && route.access !== 'any') responses['403'] = problemResponse('Wrong role');
  if (route.params) responses['404'] = problemResponse('Unknown, or not yours');
  for (const problem of route.problems ?? []) responses[`${problem.status}`] = problemResponse(problem.description);
  return {
    summary: route.summary,
    tags: [route.tag],
    security: route.access === 'public' ? [] : [{ session: [] }],
    ...(route.params || route.query
      ? { requestParams: { ...(route.params ? { path: route.params } : {}), ...(route.query ? { query: route.query } : {}) } }
      : {}),
    ...(route.body ? { requestBody: { content: { 'application/json': { schema: route.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document for everything in `apiRoutes`. */
export function buildOpenApiDocument(serverUrl = '/api/v1'): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of apiRoutes) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Pasar marketplace API', version: '1.0.0', description: 'Multi-vendor marketplace commerce back end.' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'pasar.session_token' } },
    },
    paths,
  });
}
